import path from "node:path";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../../lib/db/config";
import { retentionCutoff, retentionPolicy } from "../../../lib/retention/policy";

describe("retentionPolicy (STOPLINE_RETENTION_DAYS)", () => {
  it("unset or empty keeps every task forever; the archive directory defaults to data/archive under the project", () => {
    for (const env of [{}, { STOPLINE_RETENTION_DAYS: "" }, { STOPLINE_RETENTION_DAYS: "  " }]) {
      const p = retentionPolicy(env);
      expect(p.days).toBeNull();
      expect(p.archiveDir).toBe(path.join(PROJECT_ROOT, "data", "archive"));
      expect(retentionCutoff(p, new Date())).toBeNull();
    }
  });

  it.each([
    ["90", 90],
    ["0.5", 0.5],
    [" 365 ", 365],
  ])("STOPLINE_RETENTION_DAYS=%j → %d days; the cutoff is that long before now", (raw, days) => {
    const p = retentionPolicy({ STOPLINE_RETENTION_DAYS: raw });
    expect(p.days).toBe(days);
    const now = new Date("2026-12-05T03:00:00.000Z");
    expect(retentionCutoff(p, now)!.getTime()).toBe(now.getTime() - days * 86_400_000);
  });

  it.each(["0", "-3", "ninety", "90d", "1e9", "NaN", "Infinity"])("STOPLINE_RETENTION_DAYS=%j is a start-up error that names the setting", (raw) => {
    expect(() => retentionPolicy({ STOPLINE_RETENTION_DAYS: raw })).toThrow(
      new RegExp(`^retention policy: STOPLINE_RETENTION_DAYS must be a positive number of days .*; got "${raw}"$`),
    );
  });

  it("the other settings are checked the same way", () => {
    expect(() => retentionPolicy({ STOPLINE_RETENTION_DAYS: "30", STOPLINE_RETENTION_INTERVAL_MS: "10" })).toThrow(
      /STOPLINE_RETENTION_INTERVAL_MS must be a whole number of milliseconds, at least 1000; got "10"/,
    );
    expect(() => retentionPolicy({ STOPLINE_RETENTION_DAYS: "30", STOPLINE_RETENTION_BATCH: "0" })).toThrow(
      /STOPLINE_RETENTION_BATCH must be a whole number of tasks between 1 and 10000; got "0"/,
    );
    const p = retentionPolicy({
      STOPLINE_RETENTION_DAYS: "30",
      STOPLINE_ARCHIVE_DIR: "/srv/stopline/archive",
      STOPLINE_RETENTION_INTERVAL_MS: "600000",
      STOPLINE_RETENTION_BATCH: "50",
    });
    expect(p).toMatchObject({ days: 30, archiveDir: "/srv/stopline/archive", intervalMs: 600_000, batchSize: 50 });
    expect(retentionPolicy({ STOPLINE_ARCHIVE_DIR: "var/archive" }).archiveDir).toBe(path.join(PROJECT_ROOT, "var", "archive"));
  });
});

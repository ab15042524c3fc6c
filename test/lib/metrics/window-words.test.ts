import { describe, expect, it } from "vitest";
import { metricsLatencyCaption, metricsWindowSentence } from "../../../lib/metrics/window-words";

const when = (iso: string) => iso.slice(0, 16).replace("T", " ");
const window = (w: Partial<{ latest: number; since: string | null; from: string | null; full: boolean }>) => ({
  latest: 1000,
  since: null,
  from: null,
  full: false,
  ...w,
});

describe("metricsWindowSentence (which Stops the metrics cover)", () => {
  it.each<[string, Parameters<typeof metricsWindowSentence>[0], string]>([
    ["nothing stopped yet", { window: window({}), tasks: { stopped: 0, settled: 0 } }, "No task has been stopped yet."],
    [
      "nothing stopped since",
      { window: window({ since: "2026-12-07T04:00:00Z" }), tasks: { stopped: 0, settled: 0 } },
      "No task was stopped since 2026-12-07 04:00.",
    ],
    [
      "one Stop in all",
      { window: window({ from: "2026-12-07T04:10:00Z" }), tasks: { stopped: 1, settled: 0 } },
      "1 task stopped in all, 0 settled as cancelled.",
    ],
    [
      "every Stop, fewer than the window holds",
      { window: window({ from: "2026-12-01T09:00:00Z" }), tasks: { stopped: 12, settled: 11 } },
      "12 tasks stopped in all, 11 settled as cancelled.",
    ],
    [
      "every Stop since a time",
      { window: window({ since: "2026-12-07T00:00:00Z", from: "2026-12-07T01:00:00Z" }), tasks: { stopped: 3, settled: 3 } },
      "3 tasks stopped since 2026-12-07 00:00, 3 settled as cancelled.",
    ],
    [
      "the window is full: older Stops are left out, and it says so",
      { window: window({ from: "2026-11-30T08:15:00Z", full: true }), tasks: { stopped: 1000, settled: 998 } },
      "The latest 1,000 Stops, back to 2026-11-30 08:15 (older ones are left out): 998 settled as cancelled.",
    ],
  ])("%s", (_, metrics, words) => {
    expect(metricsWindowSentence(metrics, when)).toBe(words);
  });

  it("a full window never reads as every Stop", () => {
    const s = metricsWindowSentence({ window: window({ from: "2026-11-30T08:15:00Z", full: true }), tasks: { stopped: 1000, settled: 1000 } }, when);
    expect(s).not.toMatch(/in all|tasks stopped/);
  });
});

describe("metricsLatencyCaption", () => {
  it("says the times cover only the latest Stops when older ones were left out, and nothing more otherwise", () => {
    const from = "From the task's Stop boundary to each child's settlement, as recorded in the ledger.";
    expect(metricsLatencyCaption(window({ full: false }))).toBe(from);
    expect(metricsLatencyCaption(window({ full: true }))).toBe(`${from} The latest 1,000 Stops only.`);
  });
});

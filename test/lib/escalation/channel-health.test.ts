import { describe, expect, it } from "vitest";
import { channelHealth, channelHealthSentence, ChannelHealth, type Attempt } from "../../../lib/escalation/channel-health";

const t = (minute: number) => `2026-12-01T03:${String(minute).padStart(2, "0")}:00.000Z`;
const ok = (minute: number): Attempt => ({ at: t(minute), status: 200, error: null });
const bad = (minute: number, status: number | null = 500): Attempt => ({ at: t(minute), status, error: status === null ? "ECONNREFUSED" : `HTTP ${status}` });
const hhmm = (iso: string) => iso.slice(11, 16);

describe("channelHealth (derived from the delivery log)", () => {
  it.each<[string, boolean, Attempt[], ChannelHealth, number, string]>([
    ["no attempt yet", true, [], ChannelHealth.untested, 0, "no delivery attempted yet — send a test to check it"],
    [
      "5 of 5 failed is failing, not Active",
      true,
      [bad(1), bad(2), bad(3, null), bad(4), bad(5)],
      ChannelHealth.failing,
      5,
      "5 of 5 attempts failed · never delivered",
    ],
    ["recovered", true, [bad(1), bad(2), ok(3)], ChannelHealth.healthy, 0, "last delivered 03:03"],
    ["failing again after a success", true, [ok(1), bad(2), bad(3)], ChannelHealth.failing, 2, "2 failed in a row · last delivered 03:01"],
    ["order is by time, not by array position", true, [bad(5), ok(1)], ChannelHealth.failing, 1, "1 failed in a row · last delivered 03:01"],
    [
      "a 2xx with an error recorded is not a success (a redirect is not followed)",
      true,
      [{ at: t(1), status: 302, error: "HTTP 302: redirect not followed" }],
      ChannelHealth.failing,
      1,
      "1 of 1 attempts failed · never delivered",
    ],
    ["removed", false, [ok(1)], ChannelHealth.removed, 0, "last delivered 03:01"],
  ])("%s", (_, active, attempts, health, failures, sentence) => {
    const h = channelHealth(active, attempts);
    expect(h.health).toBe(health);
    expect(h.consecutiveFailures).toBe(failures);
    expect(channelHealthSentence(h, hhmm)).toBe(sentence);
  });
});

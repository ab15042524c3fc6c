import { describe, expect, it } from "vitest";
import type { TaskDetail } from "../../../components/chat/api";
import { changesSince } from "../../../components/chat/meanwhile";

/**
 * Issue 20, item 8: can "While you were away" miss a child's change? It compares the ledger now with the last state
 * this browser saved: every step whose status differs — whatever it was, including one the page never saw — is
 * listed, and so is the request's stage. (The flaky e2e read the DOM at another moment than the page saved; see
 * e2e/chat.spec.ts "close the page mid-cancellation".)
 */
const at = "2026-12-04T17:00:00.000Z";
const detail = (stage: string, items: [string, string, string][]): TaskDetail =>
  ({
    id: "t1",
    stage,
    updatedAt: at,
    workItems: items.map(([id, toolName, status]) => ({ id, toolName, status, finishedAt: null, updatedAt: at })),
  }) as unknown as TaskDetail;

describe("changesSince never misses a child's change", () => {
  it.each<[string, { stage: string; items: Record<string, string> }, [string, string, string][], string, [string | null, string | null, string][]]>([
    [
      "export still stopping when saved",
      { stage: "cancelling", items: { e: "cancelling", g: "cancelled" } },
      [
        ["e", "reports.export_report", "partial"],
        ["g", "inference.generate", "cancelled"],
      ],
      "cancelled",
      [
        [null, "cancelling", "cancelled"],
        ["e", "cancelling", "partial"],
      ],
    ],
    [
      "export already partial when saved: only the request moved",
      { stage: "cancelling", items: { e: "partial" } },
      [["e", "reports.export_report", "partial"]],
      "cancelled",
      [[null, "cancelling", "cancelled"]],
    ],
    [
      "still running when saved",
      { stage: "cancelling", items: { e: "running" } },
      [["e", "reports.export_report", "partial"]],
      "cancelled",
      [
        [null, "cancelling", "cancelled"],
        ["e", "running", "partial"],
      ],
    ],
    [
      "a step the page never saw",
      { stage: "cancelling", items: {} },
      [["e", "reports.export_report", "partial"]],
      "cancelled",
      [
        [null, "cancelling", "cancelled"],
        ["e", null, "partial"],
      ],
    ],
    ["nothing moved", { stage: "cancelled", items: { e: "partial" } }, [["e", "reports.export_report", "partial"]], "cancelled", []],
  ])("%s", (_, saved, items, stage, expected) => {
    const changes = changesSince({ savedAt: at, tasks: { t1: saved } }, [detail(stage, items)]);
    expect(changes.map((c) => [c.itemId, c.from, c.to])).toEqual(expected);
  });
});

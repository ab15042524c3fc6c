import { describe, expect, it } from "vitest";
import { FindingKind, kindOfContradiction } from "../../../../lib/conformance/random/judge";
import { describeScenario, generateScenario } from "../../../../lib/conformance/random/scenario";

describe("the random mode's scenarios", () => {
  it("are replayable: the same seed and index give the same scenario, another index another one", () => {
    expect(generateScenario(19, 42, { crash: true })).toEqual(generateScenario(19, 42, { crash: true }));
    const many = Array.from({ length: 200 }, (_, i) => describeScenario(generateScenario(19, i, { crash: true })));
    expect(new Set(many).size).toBeGreaterThan(190);
  });
  it("draw every ingredient the brief names across a few hundred: each tool, each fault, double Stops, approvals, both crash targets", () => {
    const all = Array.from({ length: 400 }, (_, i) => generateScenario(5, i, { crash: true }));
    const tools = new Set(all.flatMap((s) => s.calls.map((c) => c.tool)));
    expect(tools.size).toBe(6);
    const faults = new Set(all.flatMap((s) => Object.values(s.faults).flatMap((f) => Object.keys(f!))));
    expect([...faults].sort()).toEqual(["acceptThenTimeout", "cancelUnavailable", "failToRelease", "ignoreCancellation", "latencyMs", "someoneElseEdits"]);
    expect(all.some((s) => s.secondStopAfterMs !== null)).toBe(true);
    expect(all.some((s) => s.approve)).toBe(true);
    expect(new Set(all.map((s) => s.crash!.target))).toEqual(new Set(["app", "worker"]));
    expect(all.every((s) => s.calls.filter((c) => c.tool === "inference.generate").length <= 1)).toBe(true);
  });
  it("keep to the tools asked for", () => {
    for (let i = 0; i < 50; i++)
      expect(generateScenario(1, i, { tools: ["reports.export_report"] }).calls.map((c) => c.tool)).toEqual(["reports.export_report"]);
  });
});

describe("what a witness contradiction means", () => {
  it.each([
    [
      "the witness shows order ord_1 was created, but the summary lists no call for it in neither orphaned_side_effects nor uncertain_tool_calls",
      FindingKind.hiddenEffect,
    ],
    ["the witness shows lock:exp_1 still held, but the summary reports it neither orphaned nor still held (status CANCELLED)", FindingKind.unreportedResource],
    ["the ledger records lock:exp_1 as released (verified), but the witness shows it still held", FindingKind.unreportedResource],
    ["summary lists shop.create_order c1 as CANCELLED, but the witness shows: order ord_1 was created (not reversed)", FindingKind.overclaim],
    ["summary reports lock:exp_1 orphaned (could not be released) for reports.export_report c1, but the witness shows it released", FindingKind.falseAlarm],
  ])("%s → %s", (problem, kind) => {
    expect(kindOfContradiction(problem)).toBe(kind);
  });
});

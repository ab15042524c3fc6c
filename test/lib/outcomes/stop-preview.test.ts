import { describe, expect, it } from "vitest";
import { Mechanism, WorkItemStatus } from "../../../lib/ledger/states";
import { OutcomeKind } from "../../../lib/outcomes/child-outcome";
import {
  HEADED_FOR,
  predict,
  PREVIEW_KINDS,
  previewHeadline,
  previewKind,
  PreviewKind,
  type PreviewAction,
  type PreviewFacts,
} from "../../../lib/outcomes/stop-preview";

const NOW = Date.parse("2026-12-01T12:00:00Z");
const child = (over: Partial<PreviewFacts>): PreviewFacts => ({
  action: "abort",
  status: WorkItemStatus.running,
  mechanism: Mechanism.abortSignal,
  label: "the export",
  progress: null,
  effect: null,
  ...over,
});

describe("what Stop will do to a child (the decision table)", () => {
  const rows: [string, Partial<PreviewFacts>, PreviewKind][] = [
    ["queued", { status: WorkItemStatus.queued }, PreviewKind.neverStarts],
    ["queued, whatever its mechanism", { status: WorkItemStatus.queued, mechanism: Mechanism.none }, PreviewKind.neverStarts],
    ["running local code", {}, PreviewKind.toldToStop],
    ["running local code with a complete part", { action: "await_partial" }, PreviewKind.stopsKeepingPartial],
    ["running at a service with a cancel", { mechanism: Mechanism.providerCancel }, PreviewKind.serviceCancels],
    ["running, rolled back", { mechanism: Mechanism.rollback, action: "rollback" }, PreviewKind.rolledBack],
    ["running, no way to stop", { mechanism: Mechanism.none, action: "notify" }, PreviewKind.cannotStop],
    ["already unrecoverable", { status: WorkItemStatus.unrecoverable, action: "notify" }, PreviewKind.cannotStop],
    ["accepted by its service", { status: WorkItemStatus.submitted, mechanism: Mechanism.providerCancel }, PreviewKind.askService],
    ["uncertain", { status: WorkItemStatus.uncertain, mechanism: Mechanism.providerCancel }, PreviewKind.askService],
    ["accepted, rolled back", { status: WorkItemStatus.submitted, mechanism: Mechanism.rollback, action: "rollback" }, PreviewKind.rolledBack],
    ["accepted, cannot be stopped", { status: WorkItemStatus.submitted, mechanism: Mechanism.none, action: "notify" }, PreviewKind.cannotStop],
    [
      "took effect, reversible",
      { action: null, status: WorkItemStatus.completed, effect: { description: "order #12", committedAt: NOW - 4_000, reversible: true } },
      PreviewKind.effectNeedsApproval,
    ],
    [
      "took effect, irreversible",
      { action: null, status: WorkItemStatus.completed, effect: { description: "the email", committedAt: NOW, reversible: false } },
      PreviewKind.effectFinal,
    ],
  ];
  it.each(rows)("%s", (_, facts, kind) => {
    expect(previewKind(child(facts))).toBe(kind);
  });

  it("reaches every kind, and each heads for an outcome the summary can show", () => {
    expect(new Set(rows.map((r) => r[2]))).toEqual(new Set(PREVIEW_KINDS));
    for (const k of PREVIEW_KINDS) expect(Object.values(OutcomeKind)).toContain(HEADED_FOR[k]);
  });
});

describe("the words", () => {
  it.each([
    [child({ status: WorkItemStatus.queued }), "the export will never start"],
    [
      child({ action: "await_partial", progress: { done: 1200, unit: "rows" } }),
      "the export will stop; about 1,200 rows done so far will be kept if they form a complete part",
    ],
    [
      child({ action: null, label: "shop.create_order", effect: { description: "the order", committedAt: NOW - 4_000, reversible: true } }),
      "the order took effect 4 s ago: Stop cannot undo it; an operator will be asked to approve reversing it",
    ],
    [
      child({ action: null, label: "mail.send", effect: { description: "the email", committedAt: NOW - 61_000, reversible: false } }),
      "the email took effect 61 s ago: it cannot be undone",
    ],
    [child({ mechanism: Mechanism.none, action: "notify" }), "the export cannot be stopped: it will run to its end and be reported"],
    [
      child({ mechanism: Mechanism.providerCancel, progress: { done: 1200, unit: "rows" } }),
      "the export will be cancelled at its service (about 1,200 rows done so far), then checked: Stop reports what the service says, not what it was told",
    ],
  ])("%#", (facts, sentence) => {
    expect(predict(facts, NOW).sentence).toBe(sentence);
  });

  it("never carries an id, a status code or a path", () => {
    for (const status of Object.values(WorkItemStatus))
      for (const mechanism of Object.values(Mechanism))
        for (const action of ["abort", "await_partial", "rollback", "notify", null] as (PreviewAction | null)[]) {
          const p = predict(
            child({ status, mechanism, action, effect: action === null ? { description: "the order", committedAt: NOW, reversible: true } : null }),
            NOW,
          );
          expect(p.sentence).not.toMatch(/[0-9a-f]{8}-|\b[1-5]\d\d\b|\/api\//);
        }
  });

  it("counts the way a person does", () => {
    expect(previewHeadline([])).toBe("Nothing is running: Stop ends this request and changes nothing.");
    expect(
      previewHeadline([
        PreviewKind.neverStarts,
        PreviewKind.neverStarts,
        PreviewKind.neverStarts,
        PreviewKind.toldToStop,
        PreviewKind.effectNeedsApproval,
        PreviewKind.effectFinal,
      ]),
    ).toBe("3 queued steps will never start; 1 step will be stopped; 1 effect will need an operator's approval to reverse; 1 effect cannot be undone.");
    expect(previewHeadline([PreviewKind.cannotStop, PreviewKind.askService])).toBe(
      "1 step already sent will be checked with the service; 1 step cannot be stopped.",
    );
  });
});

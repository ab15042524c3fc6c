import { describe, expect, it } from "vitest";
import type { CancellationSummary } from "../../../lib/cancellation/summarize";
import type { WitnessEntry } from "../../../lib/demo/store";
import { witnessContradictions, witnessFacts, type CallBinding } from "../../../lib/conformance/witness-check";

const BOUNDARY = "2026-11-30T10:00:00.000Z";
const before = "2026-11-30T09:59:59.000Z";
const after = "2026-11-30T10:00:01.000Z";

let seq = 0;
const w = (service: string, action: string, subject: string, at = after, detail: unknown = null): WitnessEntry => ({
  seq: ++seq,
  service,
  action,
  subject,
  detail,
  at,
});

const summary = (over: Partial<CancellationSummary> = {}): CancellationSummary => ({
  task_id: "t1",
  scope: { kind: "task", ref: null },
  status: "CANCELLED",
  cancel_requested_at: BOUNDARY,
  settled_at: after,
  cancelled_tool_calls: [],
  orphaned_side_effects: [],
  completed_tool_calls: [],
  uncertain_tool_calls: [],
  tool_calls: [],
  orphaned_resources: [],
  held_resources: [],
  releasing_resources: [],
  unconfirmed_resources: [],
  open_review_items: 0,
  stopped_by: { actor: null, reason: null },
  since_settlement: [],
  user_message: "Stopped new work.",
  ...over,
});
const cancelled = (id: string, tool: string, status: "CANCELLED" | "CANCELLED_INCOMPLETE" | "UNRECOVERABLE" = "CANCELLED", orphaned: string[] = []) => ({
  tool_call_id: id,
  tool_name: tool,
  cancellation_status: status,
  partial_result: null,
  orphaned_resources: orphaned,
});

const order: CallBinding = { toolCallId: "c-order", toolName: "shop.create_order", subjects: ["ord_1"] };
const record: CallBinding = { toolCallId: "c-record", toolName: "crm.create_record", subjects: ["rec_1"] };
const email: CallBinding = { toolCallId: "c-email", toolName: "mailer.send_email", subjects: ["msg_1"] };
const exp: CallBinding = { toolCallId: "c-export", toolName: "reports.export_report", subjects: ["exp_1"] };
const gen: CallBinding = { toolCallId: "c-gen", toolName: "inference.generate", subjects: ["gen_1"] };

describe("witnessFacts", () => {
  it("folds reversals and releases in log order", () => {
    const facts = witnessFacts([
      w("shop", "order_created", "ord_1"),
      w("shop", "order_cancelled", "ord_1"),
      w("crm", "record_created", "rec_1"),
      w("reports", "lock_acquired", "exp_1", after, { tempFile: "/tmp/x.csv" }),
      w("reports", "lock_released", "exp_1"),
    ]);
    expect(facts.get("ord_1")?.unreversedCommitment).toBeNull();
    expect(facts.get("rec_1")?.unreversedCommitment).toMatch(/rec_1 was created/);
    expect(facts.get("exp_1")).toMatchObject({ held: [], released: ["lock:exp_1", "temp_file:/tmp/x.csv"] });
  });
});

describe("witnessContradictions", () => {
  it("a consistent summary: nothing to report", () => {
    const witness = [w("shop", "order_created", "ord_1"), w("mailer", "draft_created", "msg_1"), w("mailer", "draft_discarded", "msg_1")];
    const s = summary({
      status: "PARTIALLY_CANCELLED",
      cancelled_tool_calls: [cancelled("c-email", "mailer.send_email", "CANCELLED_INCOMPLETE")],
      orphaned_side_effects: [{ tool_name: "shop.create_order", tool_call_id: "c-order", description: "order ord_1" }],
      user_message: "Stopped new work. One draft discarded. One action already took effect; review required.",
    });
    expect(witnessContradictions({ summary: s, witness, calls: [order, email] })).toEqual([]);
  });

  it("CANCELLED for an order the shop created and never cancelled", () => {
    const problems = witnessContradictions({
      summary: summary({ cancelled_tool_calls: [cancelled("c-order", "shop.create_order")] }),
      witness: [w("shop", "order_created", "ord_1")],
      calls: [order],
    });
    expect(problems).toEqual([
      expect.stringMatching(/lists shop.create_order c-order as CANCELLED, but the witness shows: order ord_1 was created/),
      expect.stringMatching(/in neither orphaned_side_effects nor uncertain_tool_calls/),
      expect.stringMatching(/status is CANCELLED, but the witness shows unreversed effects/),
    ]);
  });

  it("an order created and then cancelled is no effect", () => {
    const problems = witnessContradictions({
      summary: summary({ cancelled_tool_calls: [cancelled("c-order", "shop.create_order")] }),
      witness: [w("shop", "order_created", "ord_1"), w("shop", "order_cancelled", "ord_1")],
      calls: [order],
    });
    expect(problems).toEqual([]);
  });

  it("an orphaned side effect the witness shows reversed (or never made) is a false claim", () => {
    const s = summary({
      status: "PARTIALLY_CANCELLED",
      orphaned_side_effects: [{ tool_name: "crm.create_record", tool_call_id: "c-record", description: "record" }],
    });
    expect(
      witnessContradictions({ summary: s, witness: [w("crm", "record_created", "rec_1"), w("crm", "record_archived", "rec_1")], calls: [record] }),
    ).toEqual([expect.stringMatching(/no unreversed effect/)]);
    expect(witnessContradictions({ summary: s, witness: [], calls: [{ ...record, subjects: [] }] })).toEqual([
      expect.stringMatching(/no service record at all/),
    ]);
  });

  it("an uncertain call accounts for a committed effect; IN_PROGRESS without a claim is not a contradiction", () => {
    const witness = [w("mailer", "email_sent", "msg_1")];
    expect(
      witnessContradictions({
        summary: summary({
          status: "PARTIALLY_CANCELLED",
          uncertain_tool_calls: [{ tool_call_id: "c-email", tool_name: "mailer.send_email", status: "uncertain", reconcile_deadline: null }],
        }),
        witness,
        calls: [email],
      }),
    ).toEqual([]);
    expect(witnessContradictions({ summary: summary({ status: "IN_PROGRESS" }), witness, calls: [email] })).toEqual([]);
  });

  it("a completed export or generation listed as cancelled", () => {
    const s = summary({
      cancelled_tool_calls: [cancelled("c-export", "reports.export_report"), cancelled("c-gen", "inference.generate", "CANCELLED_INCOMPLETE")],
    });
    const witness = [w("reports", "export_completed", "exp_1"), w("inference", "generation_completed", "gen_1")];
    const problems = witnessContradictions({ summary: s, witness, calls: [exp, gen] });
    expect(problems).toEqual([
      expect.stringMatching(/reports.export_report c-export as CANCELLED, but the witness shows export_completed/),
      expect.stringMatching(/inference.generate c-gen as CANCELLED_INCOMPLETE, but the witness shows generation_completed/),
      expect.stringMatching(/status is CANCELLED/),
    ]);
  });

  it("a job that completed before the Stop does not make a plain CANCELLED false", () => {
    expect(witnessContradictions({ summary: summary(), witness: [w("reports", "export_completed", "exp_1", before)], calls: [exp] })).toEqual([]);
  });

  it("a lock the witness shows held must be reported orphaned, and the ledger must not call it released", () => {
    const witness = [w("reports", "lock_acquired", "exp_1", after, { tempFile: "/tmp/e.csv" })];
    const silent = witnessContradictions({
      summary: summary({ cancelled_tool_calls: [cancelled("c-export", "reports.export_report")] }),
      witness,
      calls: [exp],
      ledger: { resources: [{ workItemId: "i", type: "lock", handle: "exp_1", state: "released" }] },
    });
    expect(silent).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/lock:exp_1 still held, but the summary reports it neither orphaned nor still held/),
        expect.stringMatching(/ledger records lock:exp_1 as released/),
        expect.stringMatching(/user message does not say a resource could not be released/),
      ]),
    );
    const honest = witnessContradictions({
      summary: summary({
        status: "PARTIALLY_CANCELLED",
        cancelled_tool_calls: [cancelled("c-export", "reports.export_report", "CANCELLED", ["lock:exp_1", "temp_file:/tmp/e.csv"])],
        user_message: "Stopped new work. Two resources could not be released; an operator has been asked to handle them.",
      }),
      witness,
      calls: [exp],
    });
    expect(honest).toEqual([]);
  });

  it("written ahead: a lock and temp file the service holds for an uncertain call are reported by its call and kind, and the message says they may still be held (SQLite seed 1209 #324)", () => {
    const witness = [w("reports", "export_started", "exp_1", after), w("reports", "lock_acquired", "exp_1", after, { tempFile: "/tmp/e.csv" })];
    const uncertain = { tool_call_id: "c-export", tool_name: "reports.export_report", status: "uncertain", reconcile_deadline: after };
    const message = "Stopped new work. One outcome is not yet confirmed; Stopline is checking with the service until 18:00 UTC.";
    // #324 as it was: uncertain, its resources in no list — silent about the lock and the temp file.
    const silent = witnessContradictions({
      summary: summary({ status: "PARTIALLY_CANCELLED", uncertain_tool_calls: [uncertain], user_message: message }),
      witness,
      calls: [exp],
    });
    expect(silent).toEqual(expect.arrayContaining([expect.stringMatching(/lock:exp_1 still held, but the summary reports it neither/)]));
    const listedOnly = witnessContradictions({
      summary: summary({
        status: "PARTIALLY_CANCELLED",
        uncertain_tool_calls: [uncertain],
        unconfirmed_resources: [
          { tool_call_id: "c-export", tool_name: "reports.export_report", type: "lock", outcome: "may_be_held" as const },
          { tool_call_id: "c-export", tool_name: "reports.export_report", type: "temp_file", outcome: "may_be_held" as const },
        ],
        user_message: message,
      }),
      witness,
      calls: [exp],
    });
    expect(listedOnly).toEqual([expect.stringMatching(/user message does not say a resource may still be held/)]);
    const honest = witnessContradictions({
      summary: summary({
        status: "PARTIALLY_CANCELLED",
        uncertain_tool_calls: [uncertain],
        unconfirmed_resources: [
          { tool_call_id: "c-export", tool_name: "reports.export_report", type: "lock", outcome: "may_be_held" as const },
          { tool_call_id: "c-export", tool_name: "reports.export_report", type: "temp_file", outcome: "may_be_held" as const },
        ],
        user_message: `${message} Two resources may still be held at a service: a step's answer never came back, so Stopline asks the service what it holds, then releases and verifies them.`,
      }),
      witness,
      calls: [exp],
    });
    expect(honest).toEqual([]);
    // Another call's intent does not account for this call's lock.
    const otherCall = witnessContradictions({
      summary: summary({
        status: "PARTIALLY_CANCELLED",
        uncertain_tool_calls: [uncertain],
        unconfirmed_resources: [{ tool_call_id: "c-other", tool_name: "reports.export_report", type: "lock", outcome: "may_be_held" as const }],
        user_message: `${message} One resource may still be held at a service: a step's answer never came back, so Stopline asks the service what it holds, then releases and verifies it.`,
      }),
      witness,
      calls: [exp],
    });
    expect(otherCall).toEqual(expect.arrayContaining([expect.stringMatching(/lock:exp_1 still held, but the summary reports it neither/)]));
  });

  it("written ahead, its service could not say: 'may still be held at a service' is true whether the service holds the lock or nothing; 'could not be released' was a false alarm when it held nothing (PostgreSQL seed 1207 #126)", () => {
    const uncertain = { tool_call_id: "c-export", tool_name: "reports.export_report", status: "uncertain", reconcile_deadline: after };
    const unconfirmed = [
      { tool_call_id: "c-export", tool_name: "reports.export_report", type: "lock", outcome: "service_could_not_say" as const },
      { tool_call_id: "c-export", tool_name: "reports.export_report", type: "temp_file", outcome: "service_could_not_say" as const },
    ];
    const said = (user_message: string) =>
      summary({ status: "PARTIALLY_CANCELLED", uncertain_tool_calls: [uncertain], unconfirmed_resources: unconfirmed, user_message });
    const now =
      "Stopped new work. Two resources may still be held at a service, which could not say whether the step holds them; an operator has been asked to check.";
    const before = "Stopped new work. Two resources could not be released; an operator has been asked to handle them.";
    const heldNothing: ReturnType<typeof w>[] = []; // the start request never reached the service
    const held = [w("reports", "export_started", "exp_1", after), w("reports", "lock_acquired", "exp_1", after, { tempFile: "/tmp/e.csv" })];
    expect(witnessContradictions({ summary: said(before), witness: heldNothing, calls: [exp] })).toEqual([]); // no facts of the service: not judged
    expect(witnessContradictions({ summary: said(now), witness: held, calls: [exp] })).toEqual([]);
    expect(witnessContradictions({ summary: said(now), witness: [...held, w("reports", "lock_released", "exp_1")], calls: [exp] })).toEqual([]);
    expect(witnessContradictions({ summary: said(before), witness: [...held, w("reports", "lock_released", "exp_1")], calls: [exp] })).toEqual([
      expect.stringMatching(/says two resource\(s\) could not be released, but the witness shows none still held/),
    ]);
  });

  it("a resource reported orphaned that the witness shows released", () => {
    const witness = [w("reports", "lock_acquired", "exp_1", after, { tempFile: "/tmp/e.csv" }), w("reports", "lock_released", "exp_1")];
    const problems = witnessContradictions({
      summary: summary({
        status: "PARTIALLY_CANCELLED",
        user_message: "Stopped new work. Two resources could not be released; an operator has been asked to handle them.",
      }),
      witness,
      calls: [exp],
      ledger: { resources: [{ workItemId: "i", type: "lock", handle: "exp_1", state: "orphaned" }] },
    });
    expect(problems).toEqual([
      expect.stringMatching(/ledger records lock:exp_1 as orphaned \(still held\), but the witness shows it released/),
      expect.stringMatching(/user message says two resource\(s\) could not be released, but the witness shows none still held/),
    ]);
  });

  it("'never started' while the service saw the call", () => {
    const problems = witnessContradictions({
      summary: summary({ cancelled_tool_calls: [cancelled("c-email", "mailer.send_email")] }),
      witness: [w("mailer", "draft_created", "msg_1")],
      calls: [email],
      ledger: { workItems: [{ correlationId: "c-email", toolName: "mailer.send_email", status: "cancelled", startedAt: null }] },
    });
    expect(problems).toEqual([expect.stringMatching(/never started, but the witness shows mailer:draft_created/)]);
  });
});

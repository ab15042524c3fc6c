import type { CancellationSummary } from "../cancellation/summarize";
import type { DemoDb, WitnessEntry } from "../demo/store";

/**
 * Compares what Stopline TELLS the user (the cancellation summary, and optionally the ledger behind it) with
 * what the demo services WITNESSED doing (lib/demo/store.ts). The witness log is the authority: any claim
 * the summary makes that the witness contradicts is reported. Pure (no I/O) except `bindCalls`, which reads
 * the demo services' own tables — never Stopline's ledger — to learn which service records a call produced.
 *
 * Contradictions looked for:
 *  - a call listed as CANCELLED / CANCELLED_INCOMPLETE whose effect the witness shows (order_created not
 *    followed by order_cancelled, record_created not archived, email_sent, export_completed,
 *    generation_completed);
 *  - a call the ledger says never started although the witness shows the service saw it;
 *  - a resource the witness shows still held (lock_acquired without lock_released) that the summary does
 *    not report as orphaned, or that the ledger records as released;
 *  - a resource the summary (a call's orphaned_resources, the user message's count) or the ledger reports
 *    orphaned although the witness shows it released;
 *  - a committed effect in the witness missing from orphaned_side_effects / uncertain_tool_calls, or an
 *    orphaned side effect listed although the witness shows nothing left unreversed;
 *  - status CANCELLED while the witness shows an unreversed effect.
 */

/** One tool call and the service records (order / record / message / export / generation ids) it produced. */
export interface CallBinding {
  toolCallId: string;
  toolName: string;
  subjects: string[];
}

/** Optional ledger facts; with them the checker also catches "never started" and "released" claims. */
export interface LedgerFacts {
  workItems?: { correlationId: string; toolName: string; status: string; startedAt: Date | null }[];
  resources?: { workItemId: string; type: string; handle: string; state: string }[];
  /** Work item id → correlation id, to name a resource's call. */
  correlationOf?: Record<string, string>;
}

export interface WitnessCheckInput {
  summary: CancellationSummary;
  /** The witness entries of the services concerned (use `witnessFor` to keep only this task's). */
  witness: WitnessEntry[];
  calls: CallBinding[];
  ledger?: LedgerFacts;
}

/** What the witness says about one service record. */
export interface SubjectFacts {
  subject: string;
  service: string;
  /** A commitment (order, CRM record, sent email) that is still in effect. */
  unreversedCommitment: string | null;
  /** A job that ran to completion (export, generation). */
  completion: { action: string; at: string } | null;
  /** Resources still held according to the service: "lock:<exportId>", "temp_file:<path>". */
  held: string[];
  /** Resources the service released. */
  released: string[];
  entries: WitnessEntry[];
}

/** Folds the witness log into per-record facts, in log order (seq). */
export function witnessFacts(witness: WitnessEntry[]): Map<string, SubjectFacts> {
  const facts = new Map<string, SubjectFacts>();
  const tempFiles = new Map<string, string>();
  const of = (e: WitnessEntry) => {
    const key = e.subject ?? `(no subject: ${e.service} ${e.action} #${e.seq})`;
    let f = facts.get(key);
    if (!f) facts.set(key, (f = { subject: key, service: e.service, unreversedCommitment: null, completion: null, held: [], released: [], entries: [] }));
    return f;
  };
  for (const e of [...witness].sort((a, b) => a.seq - b.seq)) {
    const f = of(e);
    f.entries.push(e);
    switch (`${e.service}:${e.action}`) {
      case "shop:order_created":
        f.unreversedCommitment = `order ${e.subject} was created`;
        break;
      case "shop:order_cancelled":
        f.unreversedCommitment = null;
        break;
      case "crm:record_created":
        f.unreversedCommitment = `CRM record ${e.subject} was created`;
        break;
      case "crm:record_archived":
        f.unreversedCommitment = null;
        break;
      case "mailer:email_sent":
        f.unreversedCommitment = `email ${e.subject} was sent`; // irreversible: nothing follows it
        break;
      case "reports:export_completed":
      case "inference:generation_completed":
        f.completion = { action: e.action, at: e.at };
        break;
      case "reports:lock_acquired": {
        const temp = (e.detail as { tempFile?: string } | null)?.tempFile;
        if (temp) tempFiles.set(e.subject!, temp);
        f.held = [`lock:${e.subject}`, ...(temp ? [`temp_file:${temp}`] : [])];
        f.released = [];
        break;
      }
      case "reports:lock_released": // the service frees the lock and the temp file together
        f.released = [...new Set([...f.released, ...f.held])];
        f.held = [];
        break;
    }
  }
  return facts;
}

/** Every contradiction between the summary (and ledger) and the witness; empty when they agree. */
export function witnessContradictions(input: WitnessCheckInput): string[] {
  const { summary, calls, ledger } = input;
  const facts = witnessFacts(input.witness);
  const problems: string[] = [];
  const inProgress = summary.status === "IN_PROGRESS";
  const callOfSubject = new Map<string, CallBinding>();
  for (const c of calls) for (const s of c.subjects) callOfSubject.set(s, c);
  const cancelledById = new Map(summary.cancelled_tool_calls.map((c) => [c.tool_call_id, c]));
  const sideEffectIds = new Set(summary.orphaned_side_effects.map((e) => e.tool_call_id));
  const uncertainIds = new Set(summary.uncertain_tool_calls.map((c) => c.tool_call_id));
  const mentioned = (id: string) =>
    cancelledById.has(id) || sideEffectIds.has(id) || uncertainIds.has(id) || summary.completed_tool_calls.some((c) => c.tool_call_id === id);
  const name = (c: CallBinding | undefined, subject: string) => (c ? `${c.toolName} ${c.toolCallId}` : `an unknown call (service record ${subject})`);
  const boundary = Date.parse(summary.cancel_requested_at);
  /** The summary says this call may hold a resource of the handle's kind (an open intent, issue 19). */
  const mayBeHeld = (handle: string, call: CallBinding | undefined) =>
    !!call && (summary.unconfirmed_resources ?? []).some((u) => u.tool_call_id === call.toolCallId && handle.startsWith(`${u.type}:`));

  const unreversedEffects: string[] = [];
  for (const f of facts.values()) {
    const call = callOfSubject.get(f.subject);
    const listed = call ? cancelledById.get(call.toolCallId) : undefined;
    const claimsStopped = listed && (listed.cancellation_status === "CANCELLED" || listed.cancellation_status === "CANCELLED_INCOMPLETE");

    // 1. "cancelled" for something the service did anyway
    if (claimsStopped && f.unreversedCommitment)
      problems.push(
        `summary lists ${name(call, f.subject)} as ${listed!.cancellation_status}, but the witness shows: ${f.unreversedCommitment} (not reversed)`,
      );
    if (claimsStopped && f.completion)
      problems.push(
        `summary lists ${name(call, f.subject)} as ${listed!.cancellation_status}, but the witness shows ${f.completion.action} for ${f.subject} at ${f.completion.at}`,
      );

    // 3. committed effects must be accounted for (unless the summary still says it is finding out)
    if (f.unreversedCommitment) {
      unreversedEffects.push(f.unreversedCommitment);
      const accounted = call && (sideEffectIds.has(call.toolCallId) || uncertainIds.has(call.toolCallId));
      if (!accounted && !(inProgress && (!call || !mentioned(call.toolCallId)))) {
        problems.push(
          `the witness shows ${f.unreversedCommitment}, but the summary lists ${call ? `${name(call, f.subject)}` : "no call for it"} in neither orphaned_side_effects nor uncertain_tool_calls`,
        );
      }
    }
    // a job that completed after the boundary is not "cancelled" work either
    if (f.completion && Date.parse(f.completion.at) >= boundary) unreversedEffects.push(`${f.completion.action} ${f.subject}`);

    // 2. resources
    for (const handle of f.held) {
      const orphanedIn =
        summary.cancelled_tool_calls.some((c) => c.orphaned_resources.includes(handle)) ||
        (summary.orphaned_resources ?? []).some((r) => `${r.type}:${r.handle}` === handle);
      // Held by a child that could not be stopped and still runs: reported as such (verified once it ends).
      const heldIn = (summary.held_resources ?? []).some((r) => `${r.type}:${r.handle}` === handle);
      // Being released now (its step ended; Stopline releases and verifies it next): reported as not yet released.
      const releasingIn = (summary.releasing_resources ?? []).some((r) => `${r.type}:${r.handle}` === handle);
      // Written ahead, never named by an answer: reported by its call and kind ("may still be held at a service").
      const unconfirmedIn = mayBeHeld(handle, call);
      if (!orphanedIn && !heldIn && !releasingIn && !unconfirmedIn && !inProgress)
        problems.push(`the witness shows ${handle} still held, but the summary reports it neither orphaned nor still held (status ${summary.status})`);
      const claimedReleased = ledger?.resources?.find((r) => `${r.type}:${r.handle}` === handle && r.state === "released");
      if (claimedReleased) problems.push(`the ledger records ${handle} as released (verified), but the witness shows it still held`);
    }
    for (const handle of f.released) {
      const claimedOrphaned =
        summary.cancelled_tool_calls.find((c) => c.orphaned_resources.includes(handle)) ??
        (summary.orphaned_resources ?? []).find((r) => `${r.type}:${r.handle}` === handle);
      if (claimedOrphaned)
        problems.push(
          `summary reports ${handle} orphaned (could not be released) for ${claimedOrphaned.tool_name} ${claimedOrphaned.tool_call_id}, but the witness shows it released`,
        );
      const ledgerOrphaned = ledger?.resources?.find((r) => `${r.type}:${r.handle}` === handle && r.state === "orphaned");
      if (ledgerOrphaned) problems.push(`the ledger records ${handle} as orphaned (still held), but the witness shows it released`);
    }
  }
  const stillRunning = new Set([...(summary.held_resources ?? []), ...(summary.releasing_resources ?? [])].map((r) => `${r.type}:${r.handle}`));
  const heldWrittenAhead = [...facts.values()].flatMap((f) => f.held.filter((h) => !stillRunning.has(h) && mayBeHeld(h, callOfSubject.get(f.subject))));
  const held = [...facts.values()].flatMap((f) => f.held).filter((h) => !stillRunning.has(h) && !heldWrittenAhead.includes(h));
  if (heldWrittenAhead.length && !inProgress && !/\bmay still be held at a service\b/.test(summary.user_message))
    problems.push(
      `the witness shows ${heldWrittenAhead.join(", ")} still held and the summary lists them as unconfirmed, but the user message does not say a resource may still be held: "${summary.user_message}"`,
    );
  const claimedUnreleased = /\b(\w+) resources? could not be released/.exec(summary.user_message)?.[1];
  if (held.length && !inProgress && !claimedUnreleased)
    problems.push(
      `the witness shows ${held.join(", ")} still held, but the user message does not say a resource could not be released: "${summary.user_message}"`,
    );
  if (claimedUnreleased && facts.size) {
    const n = numberWord(claimedUnreleased);
    if (n > held.length)
      problems.push(
        `the user message says ${claimedUnreleased.toLowerCase()} resource(s) could not be released, but the witness shows ${held.length ? `only ${held.join(", ")}` : "none"} still held: "${summary.user_message}"`,
      );
  }

  // 3b. an orphaned side effect the witness does not show (it was reversed, or never happened)
  for (const e of summary.orphaned_side_effects) {
    const call = calls.find((c) => c.toolCallId === e.tool_call_id);
    if (!call) continue; // not a call of the services checked here
    const live = call.subjects.some((s) => facts.get(s)?.unreversedCommitment);
    if (!live)
      problems.push(
        `summary lists an orphaned side effect of ${call.toolName} ${call.toolCallId} ("${e.description}"), but the witness shows no unreversed effect for it (${call.subjects.join(", ") || "no service record at all"})`,
      );
  }

  // 1b. "never started" while the service saw the call
  for (const item of ledger?.workItems ?? []) {
    if (item.status !== "cancelled" || item.startedAt) continue;
    const call = calls.find((c) => c.toolCallId === item.correlationId);
    const seen = call?.subjects.flatMap((s) => facts.get(s)?.entries ?? []) ?? [];
    if (seen.length)
      problems.push(
        `the ledger says ${item.toolName} ${item.correlationId} never started, but the witness shows ${seen.map((e) => `${e.service}:${e.action}`).join(", ")}`,
      );
  }

  // 4. a plain CANCELLED over effects that stand
  if (summary.status === "CANCELLED" && unreversedEffects.length)
    problems.push(`status is CANCELLED, but the witness shows unreversed effects: ${unreversedEffects.join("; ")}`);
  return problems;
}

const WORDS = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];
const numberWord = (w: string) => (WORDS.includes(w.toLowerCase()) ? WORDS.indexOf(w.toLowerCase()) : Number(w));

/** Throws one error listing every contradiction (so a test names them all at once). */
export function expectWitnessConsistent(input: WitnessCheckInput): void {
  const problems = witnessContradictions(input);
  if (problems.length) {
    throw new Error(
      `the cancellation summary contradicts the services' witness logs:\n  - ${problems.join("\n  - ")}\n` +
        `summary: ${JSON.stringify({ status: input.summary.status, cancelled: input.summary.cancelled_tool_calls, orphaned_side_effects: input.summary.orphaned_side_effects, completed: input.summary.completed_tool_calls, uncertain: input.summary.uncertain_tool_calls, user_message: input.summary.user_message })}\n` +
        `witness: ${input.witness.map((w) => `${w.seq} ${w.service}:${w.action} ${w.subject ?? ""}`).join(" | ")}`,
    );
  }
}

const TABLE_OF: Record<string, { table: string; service: string } | undefined> = {
  "shop.create_order": { table: "shop_orders", service: "shop" },
  "crm.create_record": { table: "crm_records", service: "crm" },
  "mailer.send_email": { table: "mailer_messages", service: "mailer" },
  "reports.export_report": { table: "report_exports", service: "reports" },
};

/**
 * Which service records each call produced, from the demo services' own tables, by the call's idempotency
 * key. Generations carry no key: `generations` lists the generation ids to attribute to the (single)
 * inference call of the set.
 */
export function bindCalls(
  demoDb: DemoDb,
  items: { correlationId: string; toolName: string; idempotencyKey: string }[],
  options: { generations?: string[] } = {},
): CallBinding[] {
  const inference = items.filter((i) => i.toolName === "inference.generate");
  if (inference.length > 1 && options.generations?.length) throw new Error("bindCalls: generations cannot be attributed to more than one inference call");
  return items.map((i) => {
    const where = TABLE_OF[i.toolName];
    const subjects = where
      ? (demoDb.prepare(`SELECT id FROM ${where.table} WHERE idempotency_key = ?`).all(i.idempotencyKey) as { id: string }[]).map((r) => r.id)
      : i.toolName === "inference.generate"
        ? (options.generations ?? [])
        : [];
    return { toolCallId: i.correlationId, toolName: i.toolName, subjects };
  });
}

/** The witness entries about the bound calls' records (plus, for inference, the listed generations). */
export function witnessFor(witness: WitnessEntry[], calls: CallBinding[]): WitnessEntry[] {
  const subjects = new Set(calls.flatMap((c) => c.subjects));
  return witness.filter((w) => w.subject !== null && subjects.has(w.subject));
}

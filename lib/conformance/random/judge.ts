import type { CancellationSummary } from "../../cancellation/summarize";
import type { WitnessEntry } from "../../demo/store";
import { OutcomeKind } from "../../outcomes/child-outcome";
import { witnessContradictions, witnessFacts, type CallBinding, type LedgerFacts } from "../witness-check";
import { caseVerdict, Verdict, type ServiceSays } from "../verdict";

/**
 * How one random scenario is judged — only by what the services say: each call's report against the tool's own
 * inspect() (the kit's verdict, verdict.ts) and the whole summary against the services' witness logs (what they
 * really did, and which resources they still hold: lib/conformance/witness-check.ts). Pure.
 */
export const FindingKind = {
  /** Stopline said a call stopped / never ran / was cancelled, and the service shows it took effect or still runs. */
  overclaim: "OVERCLAIM",
  /** Stopline said something took effect that the service says did not. */
  mismatch: "MISMATCH",
  /** The service shows an effect that stands, and the summary does not list it (neither orphaned nor uncertain). */
  hiddenEffect: "HIDDEN EFFECT",
  /** The service still holds a resource of the task, and the summary neither reports it orphaned nor still held (or the ledger says released). */
  unreportedResource: "UNREPORTED RESOURCE",
  /** A settled summary says a call is still running or still holds a resource, although the service ended it well before settlement. */
  staleRunning: "STALE STILL-RUNNING",
  /** The summary reports something left over (an orphaned resource or effect) that the service shows resolved: wrong, but on the safe side. */
  falseAlarm: "FALSE ALARM",
  /** The Stop did not settle within the scenario's time (the summary still says it is in progress: not wrong, but slow). */
  unsettled: "UNSETTLED",
  /** The kit itself failed to run the scenario. */
  kitError: "KIT ERROR",
} as const;
export type FindingKind = (typeof FindingKind)[keyof typeof FindingKind];

/** Kinds that make the run fail (exit 1): untrue claims of the dangerous kind. */
export const FAILING_KINDS: readonly FindingKind[] = [
  FindingKind.overclaim,
  FindingKind.mismatch,
  FindingKind.hiddenEffect,
  FindingKind.unreportedResource,
  FindingKind.staleRunning,
];

export interface Finding {
  kind: FindingKind;
  detail: string;
}

export interface CallFacts {
  toolCallId: string;
  toolName: string;
  commitsEffect: boolean;
  /** What the tool's inspect() (or the author's witness) says now. */
  service: ServiceSays;
}

export interface JudgeInput {
  summary: CancellationSummary;
  calls: CallFacts[];
  bindings: CallBinding[];
  witness: WitnessEntry[];
  ledger: LedgerFacts;
  /** The calls' idempotency keys (a mail draft is held by the key of the call that made it). */
  keys?: Record<string, string>;
  /** A settled summary's "still running" counts as stale only if the service ended the work this long before settlement. */
  staleGraceMs?: number;
}

/** Classifies a witness contradiction (witness-check.ts words it) by what it means for a person reading the summary. */
export function kindOfContradiction(problem: string): FindingKind {
  if (/in neither orphaned_side_effects nor uncertain_tool_calls/.test(problem)) return FindingKind.hiddenEffect;
  if (
    /still held, but the summary reports it neither|records .* as released \(verified\), but the witness shows it still held|does not say a resource could not be released/.test(
      problem,
    )
  )
    return FindingKind.unreportedResource;
  if (
    /orphaned .*but the witness shows it released|orphaned side effect .*but the witness shows no unreversed effect|could not be released, but the witness shows/.test(
      problem,
    )
  )
    return FindingKind.falseAlarm;
  return FindingKind.overclaim; // "listed as CANCELLED … but the witness shows", "never started, but", "status is CANCELLED, but"
}

const ENDED_ACTIONS = new Set(["export_cancelled", "export_completed", "generation_stopped", "generation_completed"]);

export function judgeScenario(input: JudgeInput): Finding[] {
  const { summary } = input;
  const findings: Finding[] = [];
  if (summary.status === "IN_PROGRESS") findings.push({ kind: FindingKind.unsettled, detail: `the summary still says IN_PROGRESS: "${summary.user_message}"` });
  // 1. Each call: Stopline's outcome against the tool's own inspect() — the kit's verdict.
  for (const call of input.calls) {
    const listed = summary.tool_calls.find((c) => c.tool_call_id === call.toolCallId);
    const reported = listed?.outcome.kind ?? null;
    // An IN_PROGRESS summary is Stopline saying it is still finding out; only a settled one is held to its words.
    if (summary.status === "IN_PROGRESS" && reported !== null) continue;
    const verdict = caseVerdict({ reported, service: call.service, commitsEffect: call.commitsEffect, reached: true, gatedAtCheckpoint: false });
    if (verdict === Verdict.overclaim)
      findings.push({
        kind: FindingKind.overclaim,
        detail: `${call.toolName} ${call.toolCallId}: Stopline reported "${listed?.outcome.label ?? "nothing (not in the summary)"}", the service (inspect) says ${call.service.replace("_", " ")}`,
      });
    if (verdict === Verdict.mismatch)
      findings.push({
        kind: FindingKind.mismatch,
        detail: `${call.toolName} ${call.toolCallId}: Stopline reported "${listed!.outcome.label}", the service (inspect) says not committed`,
      });
  }
  // 2. The whole summary (and the ledger behind it) against the services' witness logs.
  const drafts = heldDrafts(input);
  for (const problem of witnessContradictions({ summary, witness: input.witness, calls: input.bindings, ledger: input.ledger })) {
    // The shared checker counts only the export's lock and temp file; a mail draft is a resource too (below).
    const said = /(\w+) resource\(s\) could not be released, but the witness shows/.exec(problem);
    if (said && drafts.length && countWord(said[1]) <= drafts.length + heldCount(input.witness)) continue;
    findings.push({ kind: kindOfContradiction(problem), detail: problem });
  }
  // 2b. A mail draft the mailer still holds (created, neither sent nor discarded) is reported orphaned or still held.
  if (summary.status !== "IN_PROGRESS") {
    for (const d of drafts) {
      const handle = `mail_draft:${d.key}`;
      const reported =
        summary.cancelled_tool_calls.some((c) => c.orphaned_resources.includes(handle)) ||
        [...(summary.orphaned_resources ?? []), ...(summary.held_resources ?? [])].some((r) => `${r.type}:${r.handle}` === handle);
      if (!reported)
        findings.push({
          kind: FindingKind.unreportedResource,
          detail: `the mailer still holds draft ${d.messageId} of ${d.call}, but the summary reports it neither orphaned nor still held (status ${summary.status})`,
        });
      if (input.ledger.resources?.some((r) => `${r.type}:${r.handle}` === handle && r.state === "released"))
        findings.push({
          kind: FindingKind.unreportedResource,
          detail: `the ledger records ${handle} as released (verified), but the mailer still holds draft ${d.messageId}`,
        });
    }
  }
  // 3. A settled summary that says work still runs (or still holds a resource) which the service had ended well before.
  if (summary.settled_at) {
    const settled = Date.parse(summary.settled_at);
    const grace = input.staleGraceMs ?? 1_000;
    const facts = witnessFacts(input.witness);
    const endedAt = new Map<string, number>();
    for (const e of input.witness) if (ENDED_ACTIONS.has(e.action) && e.subject) endedAt.set(e.subject, Date.parse(e.at));
    for (const b of input.bindings) {
      const listed = summary.tool_calls.find((c) => c.tool_call_id === b.toolCallId);
      if (listed?.outcome.kind !== OutcomeKind.couldNotStopRunning) continue;
      const ended = b.subjects.map((s) => endedAt.get(s)).filter((t): t is number => t !== undefined);
      if (ended.length && b.subjects.every((s) => endedAt.has(s)) && Math.max(...ended) < settled - grace) {
        findings.push({
          kind: FindingKind.staleRunning,
          detail: `${b.toolName} ${b.toolCallId}: settled as "${listed.outcome.label}", but the service ended it ${settled - Math.max(...ended)} ms before settlement`,
        });
      }
    }
    for (const r of summary.held_resources ?? []) {
      const handle = `${r.type}:${r.handle}`;
      const f = [...facts.values()].find((x) => x.released.includes(handle));
      const releasedAt = f?.entries
        .filter((e) => e.action === "lock_released")
        .map((e) => Date.parse(e.at))
        .pop();
      if (f && releasedAt !== undefined && releasedAt < settled - grace)
        findings.push({
          kind: FindingKind.staleRunning,
          detail: `${r.tool_name} ${r.tool_call_id}: the summary says ${handle} is still held by a call that still runs, but the service released it ${settled - releasedAt} ms before settlement`,
        });
    }
  }
  return findings;
}

const WORDS = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];
const countWord = (w: string) => (WORDS.includes(w.toLowerCase()) ? WORDS.indexOf(w.toLowerCase()) : Number(w));
const heldCount = (witness: WitnessEntry[]) => [...witnessFacts(witness).values()].reduce((n, f) => n + f.held.length, 0);

/** Drafts the mailer still holds: created, then neither sent nor discarded. */
function heldDrafts(input: JudgeInput): { messageId: string; key: string; call: string }[] {
  const held: { messageId: string; key: string; call: string }[] = [];
  for (const b of input.bindings) {
    const key = input.keys?.[b.toolCallId];
    if (b.toolName !== "mailer.send_email" || !key) continue;
    for (const messageId of b.subjects) {
      const actions = input.witness.filter((e) => e.subject === messageId).map((e) => e.action);
      if (actions.includes("draft_created") && !actions.includes("draft_discarded") && !actions.includes("email_sent"))
        held.push({ messageId, key, call: `${b.toolName} ${b.toolCallId}` });
    }
  }
  return held;
}

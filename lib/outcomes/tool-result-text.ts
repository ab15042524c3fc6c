import { OutcomeKind, childOutcome, type ChildOutcome } from "./child-outcome";
import type { ChildFacts, StopFacts } from "./facts";
import { describeOutcome, utcFormat, type WordsFormat } from "./words";

/**
 * What an agent's model reads as the result of one tool call after a Stop (issue 25: the model sees the same truth
 * as the person). Written from the ledger's facts in the one outcome vocabulary — `childOutcome` decides the kind,
 * `describeOutcome` supplies the words — plus the two concrete facts a person would also be shown: what the effect
 * was (its recorded description, e.g. "order ord_123 (1 × lamp, €35.00)") and how much of a partial result was kept.
 * It never claims what the summary would not: an unknown outcome reads unknown, an effect that took place reads so
 * whatever the stop status says.
 *
 *   "cancelled before it started"
 *   "stopped; 1,425 rows kept (partial)"
 *   "took effect: order ord_123 (1 × lamp, €35.00) went through; a person decides by 17:09 UTC whether to reverse it"
 *   "outcome not yet known — Stopline is checking with the service until 17:09 UTC"
 */
export interface ToolResultFacts {
  child: ChildFacts;
  /** The task's Stop (its boundary and settlement). */
  stop: StopFacts;
  /** The partial result the call reported, kept or discarded (`WorkItem.partialResult`). */
  partialResult?: unknown;
  /** The effects the call submitted, as the ledger describes them (`SideEffect.description`, `externalRecordId`). */
  effects?: { description: string | null; externalRecordId: string | null; outcome: string }[];
}

/** The tool result's text, and the outcome it was written from. */
export function toolResult(facts: ToolResultFacts, f: WordsFormat = utcFormat): { text: string; outcome: ChildOutcome } {
  const outcome = childOutcome(facts.child, facts.stop);
  return { text: toolResultText(facts, f, outcome), outcome };
}

export function toolResultText(facts: ToolResultFacts, f: WordsFormat = utcFormat, outcome: ChildOutcome = childOutcome(facts.child, facts.stop)): string {
  const said = describeOutcome(outcome, f);
  switch (outcome.kind) {
    case OutcomeKind.neverStarted:
      return "cancelled before it started — it had no effect";
    case OutcomeKind.stopped:
      return "stopped before it finished";
    case OutcomeKind.stoppedPartialKept:
      return `stopped; ${keptPart(facts.partialResult)} kept (partial)`;
    case OutcomeKind.discarded:
      return `stopped; ${rest(said, "stopped — ")}`;
    case OutcomeKind.stopping:
      return "Stop requested; Stopline is still finding out what it did — not yet known whether it stopped or took effect";
    case OutcomeKind.outcomeUnknown:
      return outcome.checkingUntil !== null
        ? `outcome not yet known — Stopline is checking with the service until ${f.time(outcome.checkingUntil)}${outcome.personDecidesBy !== null ? `; a person decides by ${f.time(outcome.personDecidesBy)}` : ""}`
        : `outcome not known — ${rest(said, "outcome unknown — ")}`;
    case OutcomeKind.awaitingService:
      return `${said}; outcome not yet known`;
    case OutcomeKind.tookEffect:
      return `took effect: ${effectName(facts, "committed")} went through; ${rest(said, "took effect — ")}`;
    case OutcomeKind.reversed:
      return `took effect, then reversed: ${effectName(facts, "compensated")} was undone`;
    case OutcomeKind.completed:
    case OutcomeKind.completedBeforeStop: {
      const effect = committedEffect(facts);
      return effect ? `${said}: ${effect} went through` : said;
    }
    default:
      // waiting, running, finished after the Stop, failed, abandoned, could not stop (running or finished)
      return said;
  }
}

/** "1,425 rows", from the partial result's rows (an array, or a count) — else "a complete part of its result". */
function keptPart(partial: unknown): string {
  const p = partial && typeof partial === "object" ? (partial as Record<string, unknown>) : {};
  const n = Array.isArray(p.rows) ? p.rows.length : typeof p.rowsWritten === "number" ? p.rowsWritten : typeof p.rows === "number" ? p.rows : null;
  if (n === null) return "a complete part of its result";
  return `${n.toLocaleString("en-US")} ${n === 1 ? "row" : "rows"}`;
}

function committedEffect(facts: ToolResultFacts): string | null {
  const e = (facts.effects ?? []).find((x) => x.outcome === "committed");
  return e ? (e.description ?? e.externalRecordId ?? "its action") : null;
}

function effectName(facts: ToolResultFacts, outcome: string): string {
  const e = (facts.effects ?? []).find((x) => x.outcome === outcome);
  return e?.description ?? e?.externalRecordId ?? "its action";
}

/** The words after the vocabulary's own prefix (so the clause is the vocabulary's, not written twice). */
function rest(phrase: string, prefix: string): string {
  return phrase.startsWith(prefix) ? phrase.slice(prefix.length) : phrase;
}

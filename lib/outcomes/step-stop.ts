import { isMoving, type ChildOutcome } from "./child-outcome";
import { describeOutcome, utcFormat, type WordsFormat } from "./words";

/**
 * What a person reads once they stopped ONE step alone ("Stop this step", issue 13; issue 20 item 7): what that step
 * did, in the outcome vocabulary, and that the rest of the request went on. Null while the step's outcome is still
 * moving (being stopped, running) — then the step's own badge says so and there is nothing settled to summarise.
 */
export interface StepStopFacts {
  /** The step's label as pages show it ("Exporting the report"). */
  label: string;
  outcome: ChildOutcome;
  /** Rows of the result or the kept partial result, when it is a list of rows (story.rowsOf). */
  rows: number | null;
}

export function stepStopSummary(s: StepStopFacts, f: WordsFormat = utcFormat): string | null {
  if (isMoving(s.outcome)) return null;
  const rows = s.rows !== null ? ` (${s.rows.toLocaleString("en-US")} ${s.rows === 1 ? "row" : "rows"})` : "";
  return `You stopped “${s.label}” alone: ${describeOutcome(s.outcome, f)}${rows}. The rest of the request was not stopped.`;
}

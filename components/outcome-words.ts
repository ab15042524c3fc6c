import type { BadgeTone } from "@/components/ui/badge";
import { readerClock } from "@/lib/outcomes/time";
import { describeOutcome, isMoving, OutcomeKind, outcomeBadgeWords, type ChildOutcome, type WordsFormat } from "@/lib/outcomes";

/**
 * The outcome vocabulary (lib/outcomes) as pages show it: the same words as the API, with times in the reader's
 * own clock. Pages never write their own words for an outcome.
 */
export const localWords: WordsFormat = readerClock;

/** The outcome as a sentence ("Could not be stopped — the service refused the cancel; it finished 61 s after the Stop."). */
export const outcomeSentence = (o: ChildOutcome) => {
  const phrase = describeOutcome(o, localWords);
  return `${phrase[0].toUpperCase()}${phrase.slice(1)}.`;
};

export const outcomeBadge = (o: ChildOutcome): { label: string; tone: BadgeTone; moving: boolean } => ({
  label: outcomeBadgeWords(o).short,
  tone: outcomeBadgeWords(o).tone,
  moving: isMoving(o) || o.kind === OutcomeKind.couldNotStopRunning,
});

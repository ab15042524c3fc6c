import { isNotCleanlyStopped, type ChildOutcome, type OutcomeKind } from "./child-outcome";

/**
 * The headline of a Stop that did not end cleanly (PARTIALLY_CANCELLED), saying why (issue 20, item 7: "Stopped — some
 * work had already happened" when the only thing wrong was a lock that could not be released).
 */
export function partialStopHeadline(childKinds: OutcomeKind[], orphanedResources: number): string {
  const workHappened = childKinds.some((kind) => isNotCleanlyStopped({ kind } as ChildOutcome));
  if (!workHappened && orphanedResources > 0) return "Stopped — but something it held could not be released";
  return "Stopped — some work had already happened";
}

import { OutcomeKind } from "../outcomes/child-outcome";

/** What the tool's own service says happened (inspect(), or the author's witness hook). */
export type ServiceSays = "committed" | "not_committed" | "running" | "unknown" | "not_asked";

export const Verdict = {
  pass: "pass",
  /** Stopline said it stopped (or never started) something the service says took effect or still runs. */
  overclaim: "OVERCLAIM",
  /** Stopline said something took effect that the service says did not. */
  mismatch: "MISMATCH",
  /** The case does not apply to this tool (e.g. a commitment case for a tool that commits nothing). */
  notApplicable: "n/a",
  /**
   * A tool that commits an effect ended its run without passing Stopline's checkpoint (ctx.checkpoint()): nothing
   * stops it committing after a Stop (invariant 2). Fails the kit.
   */
  noCheckpoint: "NO CHECKPOINT",
  /** The call never reached the point the case needs (e.g. it never reported submitting): the case was not tested. */
  notReached: "not reached",
  /** Nobody could say what the service did (the tool has no inspect() and no witness): Stopline's report was not checked. */
  unverified: "unverified",
} as const;
export type Verdict = (typeof Verdict)[keyof typeof Verdict];

/** Outcomes that say "nothing happened / it stopped". */
const NO_EFFECT: readonly OutcomeKind[] = [
  OutcomeKind.neverStarted,
  OutcomeKind.stopped,
  OutcomeKind.stoppedPartialKept,
  OutcomeKind.discarded,
  OutcomeKind.abandoned,
  OutcomeKind.failed,
];
/** Outcomes that say "it happened". */
const EFFECT: readonly OutcomeKind[] = [
  OutcomeKind.tookEffect,
  OutcomeKind.completed,
  OutcomeKind.completedBeforeStop,
  OutcomeKind.finishedAfterStop,
  OutcomeKind.couldNotStopFinished,
];

/**
 * Judges one case: what Stopline reported (the child's outcome in the vocabulary) against what the service says.
 * An overclaim — a stop or a non-event Stopline reported while the service shows the effect, or the work still
 * running — fails the kit. Honest uncertainty ("outcome unknown", "could not be stopped") never fails it. For a
 * tool that commits nothing, "completed" against "not committed" is the same fact (nothing to undo), not a mismatch.
 */
export function judge(reported: OutcomeKind, service: ServiceSays, commitsEffect: boolean): Verdict {
  if (service === "committed" && NO_EFFECT.includes(reported))
    return commitsEffect || reported !== OutcomeKind.stoppedPartialKept ? Verdict.overclaim : Verdict.pass;
  if (service === "running" && NO_EFFECT.includes(reported)) return Verdict.overclaim;
  if (service === "not_committed" && EFFECT.includes(reported) && commitsEffect) return Verdict.mismatch;
  return Verdict.pass;
}

/** Verdicts that fail the kit (the command exits non-zero). */
export const FAILING: readonly Verdict[] = [Verdict.overclaim, Verdict.mismatch, Verdict.noCheckpoint];

/**
 * The verdict of one case that ran: first whether the call reached the case's point at all (`reached`: false when it
 * ended, or timed out, before it), then `judge`. A case not reached tested nothing — except that a tool that commits
 * an effect and never passed the checkpoint is itself the failure the case looks for. A pass the service could not
 * confirm (nobody asked) is only "unverified".
 */
export function caseVerdict(input: {
  reported: OutcomeKind | null;
  service: ServiceSays;
  commitsEffect: boolean;
  reached: boolean;
  gatedAtCheckpoint: boolean;
}): Verdict {
  if (!input.reported) return Verdict.overclaim; // the call is not in Stopline's report at all
  const judged = judge(input.reported, input.service, input.commitsEffect);
  if (judged !== Verdict.pass) return judged;
  if (!input.reached) return input.gatedAtCheckpoint && input.commitsEffect ? Verdict.noCheckpoint : Verdict.notReached;
  return input.service === "not_asked" ? Verdict.unverified : Verdict.pass;
}

import { OutcomeKind } from "../outcomes/child-outcome";
/** What the tool's own service says happened (inspect(), or the author's witness hook). */
export type ServiceSays = "committed" | "not_committed" | "running" | "unknown" | "not_asked";
export declare const Verdict: {
    readonly pass: "pass";
    /** Stopline said it stopped (or never started) something the service says took effect or still runs. */
    readonly overclaim: "OVERCLAIM";
    /** Stopline said something took effect that the service says did not. */
    readonly mismatch: "MISMATCH";
    /** The case does not apply to this tool (e.g. a commitment case for a tool that commits nothing). */
    readonly notApplicable: "n/a";
    /**
     * A tool that commits an effect ended its run without passing Stopline's checkpoint (ctx.checkpoint()): nothing
     * stops it committing after a Stop (invariant 2). Fails the kit.
     */
    readonly noCheckpoint: "NO CHECKPOINT";
    /** The call never reached the point the case needs (e.g. it never reported submitting): the case was not tested. */
    readonly notReached: "not reached";
    /** Nobody could say what the service did (the tool has no inspect() and no witness): Stopline's report was not checked. */
    readonly unverified: "unverified";
};
export type Verdict = (typeof Verdict)[keyof typeof Verdict];
/**
 * Judges one case: what Stopline reported (the child's outcome in the vocabulary) against what the service says.
 * An overclaim — a stop or a non-event Stopline reported while the service shows the effect, or the work still
 * running — fails the kit. Honest uncertainty ("outcome unknown", "could not be stopped") never fails it. For a
 * tool that commits nothing, "completed" against "not committed" is the same fact (nothing to undo), not a mismatch.
 */
export declare function judge(reported: OutcomeKind, service: ServiceSays, commitsEffect: boolean): Verdict;
/** Verdicts that fail the kit (the command exits non-zero). */
export declare const FAILING: readonly Verdict[];
/**
 * The verdict of one case that ran: first whether the call reached the case's point at all (`reached`: false when it
 * ended, or timed out, before it), then `judge`. A case not reached tested nothing — except that a tool that commits
 * an effect and never passed the checkpoint is itself the failure the case looks for. A pass the service could not
 * confirm (nobody asked) is only "unverified".
 */
export declare function caseVerdict(input: {
    reported: OutcomeKind | null;
    service: ServiceSays;
    commitsEffect: boolean;
    reached: boolean;
    gatedAtCheckpoint: boolean;
}): Verdict;

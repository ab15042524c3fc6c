import { type ChildOutcome } from "./child-outcome";
/** The seed's cancellation status, plus IN_PROGRESS until the engine's pass settled the Stop. */
export declare const SummaryStatus: {
    readonly inProgress: "IN_PROGRESS";
    readonly cancelled: "CANCELLED";
    readonly partiallyCancelled: "PARTIALLY_CANCELLED";
    readonly cancellationFailed: "CANCELLATION_FAILED";
};
export type SummaryStatus = (typeof SummaryStatus)[keyof typeof SummaryStatus];
/**
 * Is the Stop final, and how did it go? IN_PROGRESS until settlement (Task.settledAt: the engine finished its
 * full pass) — never a guess while the engine is still working. Then: a child that could not be stopped and
 * still runs → CANCELLATION_FAILED; anything that took (or may have taken) effect, finished anyway, or a
 * resource that could not be released → PARTIALLY_CANCELLED; else CANCELLED.
 */
export declare function summaryStatus(input: {
    settled: boolean;
    children: ChildOutcome[];
    orphanedResources: number;
}): SummaryStatus;

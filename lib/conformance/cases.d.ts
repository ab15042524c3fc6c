/**
 * The seeds' race list (shared/seeds: "the races a Stop must survive"), as the stop-conformance kit runs it against a
 * tool. Each case puts one call of the tool in one position relative to the Stop, lets Stopline do what it does, and
 * then asks the tool's own service (inspect(), and the author's witness hook if any) what really happened.
 */
export declare const ConformanceCase: {
    readonly beforeDispatch: "stop_before_dispatch";
    readonly duringRead: "stop_during_read";
    readonly beforeCommitment: "stop_before_commitment";
    readonly duringSubmission: "stop_during_submission";
    readonly afterSuccess: "stop_after_success";
    readonly replyLostAfterCommit: "reply_lost_after_commit";
    readonly cancelEndpointDown: "cancel_endpoint_down";
    readonly workerKilledAfterSubmit: "worker_killed_after_submit";
    readonly staleWorkerWakesLate: "stale_worker_wakes_late";
};
export type ConformanceCase = (typeof ConformanceCase)[keyof typeof ConformanceCase];
export declare const CONFORMANCE_CASES: ("cancel_endpoint_down" | "reply_lost_after_commit" | "stale_worker_wakes_late" | "stop_after_success" | "stop_before_commitment" | "stop_before_dispatch" | "stop_during_read" | "stop_during_submission" | "worker_killed_after_submit")[];
/** What each case does, in words for the table. */
export declare const CASE_TITLES: Record<ConformanceCase, string>;
/** Cases about a commitment (checkpoint, submission) need a tool that commits an effect. */
export declare const NEEDS_COMMITMENT: readonly ConformanceCase[];

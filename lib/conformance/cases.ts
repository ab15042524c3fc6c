/**
 * The seeds' race list (shared/seeds: "the races a Stop must survive"), as the stop-conformance kit runs it against a
 * tool. Each case puts one call of the tool in one position relative to the Stop, lets Stopline do what it does, and
 * then asks the tool's own service (inspect(), and the author's witness hook if any) what really happened.
 */
export const ConformanceCase = {
  beforeDispatch: "stop_before_dispatch",
  duringRead: "stop_during_read",
  beforeCommitment: "stop_before_commitment",
  duringSubmission: "stop_during_submission",
  afterSuccess: "stop_after_success",
  replyLostAfterCommit: "reply_lost_after_commit",
  cancelEndpointDown: "cancel_endpoint_down",
  workerKilledAfterSubmit: "worker_killed_after_submit",
  staleWorkerWakesLate: "stale_worker_wakes_late",
} as const;
export type ConformanceCase = (typeof ConformanceCase)[keyof typeof ConformanceCase];
export const CONFORMANCE_CASES = Object.values(ConformanceCase);

/** What each case does, in words for the table. */
export const CASE_TITLES: Record<ConformanceCase, string> = {
  stop_before_dispatch: "Stop before dispatch",
  stop_during_read: "Stop while the call is under way",
  stop_before_commitment: "Stop right before the commitment",
  stop_during_submission: "Stop while the service has the action",
  stop_after_success: "Stop after the call succeeded",
  reply_lost_after_commit: "Reply lost after the commit, then Stop",
  cancel_endpoint_down: "Stop with the cancel endpoint down",
  worker_killed_after_submit: "Worker killed after submitting, then Stop",
  stale_worker_wakes_late: "A stale worker wakes after the Stop",
};

/** Cases about a commitment (checkpoint, submission) need a tool that commits an effect. */
export const NEEDS_COMMITMENT: readonly ConformanceCase[] = [
  ConformanceCase.beforeCommitment,
  ConformanceCase.duringSubmission,
  ConformanceCase.replyLostAfterCommit,
  ConformanceCase.workerKilledAfterSubmit,
];

/**
 * Every state Stopline stores, defined once. Components and route handlers use the named groups and
 * predicates below, never raw string comparisons.
 */
export declare const TaskStage: {
    readonly active: "active";
    /** The cancellation boundary is recorded; the engine is stopping the children. */
    readonly cancelRequested: "cancel_requested";
    /** Every child reached a known or explicitly uncertain outcome after a Stop. */
    readonly cancelled: "cancelled";
    readonly completed: "completed";
    readonly failed: "failed";
};
export type TaskStage = (typeof TaskStage)[keyof typeof TaskStage];
/** What a Stop was for (issue 13): this task; everything of a conversation or of a person; an incident's kill
 *  switch. A Stop of one child alone is recorded on the child (WorkItem.stopRequestedAt), not on the task. */
export declare const StopScope: {
    readonly task: "task";
    readonly workItem: "work_item";
    readonly conversation: "conversation";
    readonly person: "person";
    readonly incident: "incident";
};
export type StopScope = (typeof StopScope)[keyof typeof StopScope];
/** An incident's kill switch (lib/incidents): active until two people lifted it (maker-checker). */
export declare const IncidentState: {
    readonly active: "active";
    /** One operator asked to lift it; another must confirm (or it is withdrawn back to active). */
    readonly liftRequested: "lift_requested";
    readonly lifted: "lifted";
};
export type IncidentState = (typeof IncidentState)[keyof typeof IncidentState];
/** What a kill switch quarantines: a tool (by name) or an agent/worker token (by id). */
export declare const IncidentTarget: {
    readonly tool: "tool";
    readonly token: "token";
};
export type IncidentTarget = (typeof IncidentTarget)[keyof typeof IncidentTarget];
/** While in one of these states the switch is on: nothing of its target is scheduled or claimed. */
export declare const QUARANTINE_STATES: IncidentState[];
export declare const WorkItemKind: {
    readonly modelRequest: "model_request";
    readonly localWorker: "local_worker";
    readonly remoteTool: "remote_tool";
    readonly externalAction: "external_action";
};
export type WorkItemKind = (typeof WorkItemKind)[keyof typeof WorkItemKind];
export declare const Mechanism: {
    readonly abortSignal: "abort_signal";
    readonly providerCancel: "provider_cancel";
    readonly rollback: "rollback";
    /** Cannot be stopped: reported UNRECOVERABLE and watched to completion. */
    readonly none: "none";
};
export type Mechanism = (typeof Mechanism)[keyof typeof Mechanism];
export declare const WorkItemStatus: {
    readonly queued: "queued";
    readonly running: "running";
    /** An external service accepted the action; its result is pending. */
    readonly submitted: "submitted";
    /** A stop was sent through the item's mechanism; its final status is being inspected. */
    readonly cancelling: "cancelling";
    /** Stop arrived but the item has no way to be stopped; it is watched to completion. */
    readonly unrecoverable: "unrecoverable";
    /** Outcome unknown (timeout, crash after submission, cancel endpoint down); reconcile by deadline. */
    readonly uncertain: "uncertain";
    readonly completed: "completed";
    readonly failed: "failed";
    readonly cancelled: "cancelled";
    /** Stopped; a complete, valid subset of the result is kept (PARTIAL_RESULT). */
    readonly partial: "partial";
    /** Stopped; the partial result was discarded. */
    readonly cancelledIncomplete: "cancelled_incomplete";
};
export type WorkItemStatus = (typeof WorkItemStatus)[keyof typeof WorkItemStatus];
export declare const ResourceState: {
    readonly held: "held";
    readonly releaseRequested: "release_requested";
    readonly released: "released";
    readonly orphaned: "orphaned";
};
export type ResourceState = (typeof ResourceState)[keyof typeof ResourceState];
export declare const SideEffectOutcome: {
    readonly unknown: "unknown";
    readonly committed: "committed";
    readonly notCommitted: "not_committed";
    readonly compensated: "compensated";
};
export type SideEffectOutcome = (typeof SideEffectOutcome)[keyof typeof SideEffectOutcome];
export declare const ReviewItemKind: {
    readonly approveCompensation: "approve_compensation";
    readonly resolveUncertain: "resolve_uncertain";
    readonly orphanedResource: "orphaned_resource";
    readonly orphanedSideEffect: "orphaned_side_effect";
};
export type ReviewItemKind = (typeof ReviewItemKind)[keyof typeof ReviewItemKind];
export declare const ReviewItemStatus: {
    readonly open: "open";
    readonly escalated: "escalated";
    readonly approved: "approved";
    readonly rejected: "rejected";
    readonly resolved: "resolved";
};
export type ReviewItemStatus = (typeof ReviewItemStatus)[keyof typeof ReviewItemStatus];
export declare const RiskLevel: {
    readonly low: "low";
    readonly high: "high";
};
export type RiskLevel = (typeof RiskLevel)[keyof typeof RiskLevel];
export declare const TokenRole: {
    readonly admin: "admin";
    readonly agent: "agent";
    readonly worker: "worker";
};
export type TokenRole = (typeof TokenRole)[keyof typeof TokenRole];
export declare const values: <T extends Record<string, string>>(o: T) => [T[keyof T], ...T[keyof T][]];
export declare const isTerminalItem: (s: string) => boolean;
export declare const isLeasedItem: (s: string) => boolean;
export declare const isActiveItem: (s: string) => boolean;
export declare const isStoppedItem: (s: string) => boolean;
export declare const TERMINAL_ITEM_STATUSES: WorkItemStatus[];
export declare const ACTIVE_ITEM_STATUSES: WorkItemStatus[];
export declare const LEASED_ITEM_STATUSES: WorkItemStatus[];
export declare const isTerminalTask: (s: string) => boolean;
export declare const acceptsNewWork: (s: string) => boolean;
export declare const isOpenReview: (s: string) => boolean;
export declare const OPEN_REVIEW_STATUSES: ReviewItemStatus[];

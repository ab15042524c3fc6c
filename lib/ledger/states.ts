/**
 * Every state Stopline stores, defined once. Components and route handlers use the named groups and
 * predicates below, never raw string comparisons.
 */

export const TaskStage = {
  active: "active",
  /** The cancellation boundary is recorded; the engine is stopping the children. */
  cancelRequested: "cancel_requested",
  /** Every child reached a known or explicitly uncertain outcome after a Stop. */
  cancelled: "cancelled",
  completed: "completed",
  failed: "failed",
} as const;
export type TaskStage = (typeof TaskStage)[keyof typeof TaskStage];

/** What a Stop was for (issue 13): this task; everything of a conversation or of a person; an incident's kill
 *  switch. A Stop of one child alone is recorded on the child (WorkItem.stopRequestedAt), not on the task. */
export const StopScope = {
  task: "task",
  workItem: "work_item",
  conversation: "conversation",
  person: "person",
  incident: "incident",
} as const;
export type StopScope = (typeof StopScope)[keyof typeof StopScope];

/** An incident's kill switch (lib/incidents): active until two people lifted it (maker-checker). */
export const IncidentState = {
  active: "active",
  /** One operator asked to lift it; another must confirm (or it is withdrawn back to active). */
  liftRequested: "lift_requested",
  lifted: "lifted",
} as const;
export type IncidentState = (typeof IncidentState)[keyof typeof IncidentState];
/** What a kill switch quarantines: a tool (by name) or an agent/worker token (by id). */
export const IncidentTarget = { tool: "tool", token: "token" } as const;
export type IncidentTarget = (typeof IncidentTarget)[keyof typeof IncidentTarget];
/** While in one of these states the switch is on: nothing of its target is scheduled or claimed. */
export const QUARANTINE_STATES: IncidentState[] = [IncidentState.active, IncidentState.liftRequested];

export const WorkItemKind = {
  modelRequest: "model_request",
  localWorker: "local_worker",
  remoteTool: "remote_tool",
  externalAction: "external_action",
} as const;
export type WorkItemKind = (typeof WorkItemKind)[keyof typeof WorkItemKind];

export const Mechanism = {
  abortSignal: "abort_signal",
  providerCancel: "provider_cancel",
  rollback: "rollback",
  /** Cannot be stopped: reported UNRECOVERABLE and watched to completion. */
  none: "none",
} as const;
export type Mechanism = (typeof Mechanism)[keyof typeof Mechanism];

export const WorkItemStatus = {
  queued: "queued",
  running: "running",
  /** An external service accepted the action; its result is pending. */
  submitted: "submitted",
  /** A stop was sent through the item's mechanism; its final status is being inspected. */
  cancelling: "cancelling",
  /** Stop arrived but the item has no way to be stopped; it is watched to completion. */
  unrecoverable: "unrecoverable",
  /** Outcome unknown (timeout, crash after submission, cancel endpoint down); reconcile by deadline. */
  uncertain: "uncertain",
  completed: "completed",
  failed: "failed",
  cancelled: "cancelled",
  /** Stopped; a complete, valid subset of the result is kept (PARTIAL_RESULT). */
  partial: "partial",
  /** Stopped; the partial result was discarded. */
  cancelledIncomplete: "cancelled_incomplete",
} as const;
export type WorkItemStatus = (typeof WorkItemStatus)[keyof typeof WorkItemStatus];

export const ResourceState = {
  held: "held",
  releaseRequested: "release_requested",
  released: "released",
  orphaned: "orphaned",
} as const;
export type ResourceState = (typeof ResourceState)[keyof typeof ResourceState];

/**
 * A resource a call may hold, written ahead before its request leaves (issue 19). `open` until the call's answer
 * names the concrete handle (`bound`, a Resource), or the call is known to hold none (`not_held`: it ended with its
 * answer without one, or its service — asked — says so), or its service could not say (`unresolved`: an orphaned
 * Resource stands for it, with a review item: a person decides from there).
 */
export const ResourceIntentState = {
  open: "open",
  bound: "bound",
  notHeld: "not_held",
  unresolved: "unresolved",
} as const;
export type ResourceIntentState = (typeof ResourceIntentState)[keyof typeof ResourceIntentState];

export const SideEffectOutcome = {
  unknown: "unknown",
  committed: "committed",
  notCommitted: "not_committed",
  compensated: "compensated",
} as const;
export type SideEffectOutcome = (typeof SideEffectOutcome)[keyof typeof SideEffectOutcome];

export const ReviewItemKind = {
  approveCompensation: "approve_compensation",
  resolveUncertain: "resolve_uncertain",
  orphanedResource: "orphaned_resource",
  orphanedSideEffect: "orphaned_side_effect",
} as const;
export type ReviewItemKind = (typeof ReviewItemKind)[keyof typeof ReviewItemKind];

export const ReviewItemStatus = {
  open: "open",
  escalated: "escalated",
  approved: "approved",
  rejected: "rejected",
  resolved: "resolved",
} as const;
export type ReviewItemStatus = (typeof ReviewItemStatus)[keyof typeof ReviewItemStatus];

export const RiskLevel = { low: "low", high: "high" } as const;
export type RiskLevel = (typeof RiskLevel)[keyof typeof RiskLevel];

export const TokenRole = { admin: "admin", agent: "agent", worker: "worker" } as const;
export type TokenRole = (typeof TokenRole)[keyof typeof TokenRole];

export const values = <T extends Record<string, string>>(o: T) => Object.values(o) as [T[keyof T], ...T[keyof T][]];

// ---- named groups and predicates ----------------------------------------------------------------

const set = <T extends string>(...xs: T[]) => new Set<string>(xs);

const TERMINAL_ITEM = set<WorkItemStatus>("completed", "failed", "cancelled", "partial", "cancelled_incomplete");
/**
 * Items that may hold a lease and whose holder may heartbeat, submit or complete. `uncertain` is one: the
 * engine may not know an outcome (a cancel endpoint down) while a live worker still does — and its report
 * is the best evidence there is.
 */
const LEASED_ITEM = set<WorkItemStatus>("running", "submitted", "cancelling", "unrecoverable", "uncertain");
/** Items alive at the boundary that the engine must account for. */
const ACTIVE_ITEM = set<WorkItemStatus>("queued", "running", "submitted", "cancelling", "unrecoverable", "uncertain");
const STOPPED_ITEM = set<WorkItemStatus>("cancelled", "partial", "cancelled_incomplete");

export const isTerminalItem = (s: string): boolean => TERMINAL_ITEM.has(s);
export const isLeasedItem = (s: string): boolean => LEASED_ITEM.has(s);
export const isActiveItem = (s: string): boolean => ACTIVE_ITEM.has(s);
export const isStoppedItem = (s: string): boolean => STOPPED_ITEM.has(s);
export const TERMINAL_ITEM_STATUSES = [...TERMINAL_ITEM] as WorkItemStatus[];
export const ACTIVE_ITEM_STATUSES = [...ACTIVE_ITEM] as WorkItemStatus[];
export const LEASED_ITEM_STATUSES = [...LEASED_ITEM] as WorkItemStatus[];

const TERMINAL_TASK = set<TaskStage>("cancelled", "completed", "failed");
/** Once the boundary exists nothing new may start: these stages refuse claims and commitments. */
const STOPPING_OR_DONE_TASK = set<TaskStage>("cancel_requested", "cancelled", "completed", "failed");
export const isTerminalTask = (s: string): boolean => TERMINAL_TASK.has(s);
export const acceptsNewWork = (s: string): boolean => !STOPPING_OR_DONE_TASK.has(s);

const OPEN_REVIEW = set<ReviewItemStatus>("open", "escalated");
export const isOpenReview = (s: string): boolean => OPEN_REVIEW.has(s);
export const OPEN_REVIEW_STATUSES = [...OPEN_REVIEW] as ReviewItemStatus[];

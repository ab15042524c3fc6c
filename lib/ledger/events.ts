import type { AdminEventInput, AdminEventType } from "../auth/admin-events";
import type { StoredProgress } from "./progress";

/**
 * The ledger's event catalogue: every event type Stopline writes, and the shape of its `data`, defined once.
 * `EventInput` (lib/ledger/write.ts) is built from it, so a misspelt type or a payload of the wrong shape is a
 * compile error, and "find references" on `LedgerEvent.taskCancelRequested` answers where Stop happens.
 * The raw SQL hot paths (lib/ledger/sql/) interpolate these constants into their statements.
 *
 * Events are history (invariant 9: one per state change, in the same transaction, never updated or deleted);
 * facts that must be decided once are guarded columns, never a count of events (docs/ARCHITECTURE.md).
 *
 * Plain constants and types only: the API schemas (and through them the SDK and the pages) import this file.
 */

/** Versions a checkpoint compared (both the pass and the refusal record them). */
export interface CheckpointVersions {
  preparedIntentVersion: number;
  taskIntentVersion: number;
  confirmedProposalVersion: number | null;
  taskProposalVersion: number;
}

/** A cancellation plan as recorded (lib/cancellation/plan.ts CancellationPlan). */
interface PlanRecord {
  source: "rules" | "model";
  steps: { tool_call_id: string; action: string; cleanup_steps: string[]; user_message: string }[];
  fallbackReason?: string;
  /** "work_item": the plan of a Stop of one step (the event names that step); absent: the task's plan. */
  scope?: "work_item";
}

/** Payload of each task event type. `null`: the event carries no data (its states and reason say it all). */
export interface TaskEventData {
  // ---- the task ------------------------------------------------------------------------------------------
  "task.created": { title: string; conversationId: string | null; riskLevel: string; turnId?: string | null };
  /** The cancellation boundary (invariant 1). Reason: what the person gave. */
  "task.cancel_requested": {
    intentVersion: number;
    previousIntentVersion: number;
    bornStopped?: boolean /** What the Stop was for (StopScope) and its id. */;
    scope?: string;
    scopeRef?: string | null;
  };
  /** Every child is stopped, finished, or under reconciliation. */
  "task.cancelled": null;
  /** The agent finished the task (lib/tasks/finish-task.ts). */
  "task.completed": { note: string | null };
  "task.failed": { error: string };
  // ---- the children ----------------------------------------------------------------------------------------
  /** `inline`: scheduled and started at once by its own caller (lib/ledger/start-work-item.ts), no queue. */
  "work_item.scheduled": { toolName: string; kind: string; mechanism: string; inline?: boolean };
  "work_item.claimed": { attempt: number; leaseExpiresAt: string; inline?: boolean };
  "work_item.submitted": { operationId: string; providerRef: string | null };
  /** The lease holder reported how the item ended (reason: its error, if any). */
  "work_item.finished": null;
  /** The engine (or, `scope: "call"`, a call-level Stop of one MCP call through the gateway) is stopping it. */
  "work_item.cancelling": { scope: "call" } | null;
  "work_item.unrecoverable": null;
  "work_item.uncertain": null;
  "work_item.reconciled": null;
  "work_item.removed_from_dispatch": null;
  "work_item.partial_reported": { complete: boolean };
  "work_item.progress": StoredProgress;
  /** A Stop of this child alone and its descendants (issue 13, request-child-cancellation.ts): its boundary. */
  "work_item.stop_requested": { scope: "work_item"; descendantIds: string[]; removedFromDispatch: number };
  /** The engine finished the scoped Stop's pass (WorkItem.stopSettledAt): its summary is final. */
  "work_item.stop_settled": { openReviewItems: number };
  // ---- leases and checkpoints ------------------------------------------------------------------------------
  "lease.expired": { leaseOwner: string | null; attempt?: number; operationId?: string | null; processGone?: boolean };
  "lease.stale_token_rejected": { action: string; presentedToken: string } & Record<string, unknown>;
  "checkpoint.passed": CheckpointVersions;
  "checkpoint.rejected": CheckpointVersions & { code: string };
  // ---- resources (invariant 4: released only once verified) ------------------------------------------------
  "resource.held": { type: string; handle: string };
  "resource.release_requested": null;
  "resource.released": { attempt: number };
  "resource.orphaned": { attempt: number };
  "resource.still_held": { attempt: number };
  // ---- resources written ahead (issue 19): what a call may hold, before its request leaves --------------------
  "resource.intended": { type: string; key: string };
  "resource.intent_bound": { type: string; handle: string; resourceId: string; by: "answer" | "inspect" };
  "resource.intent_not_held": { type: string; by: "answer" | "inspect" };
  "resource.intent_unresolved": { type: string; resourceId: string };
  // ---- external effects --------------------------------------------------------------------------------------
  "side_effect.recorded": { operationId: string; reversible: boolean };
  "side_effect.settled": null;
  "side_effect.reconciled": null;
  "side_effect.compensated": null;
  // ---- what only a person decides ----------------------------------------------------------------------------
  "review_item.opened": { kind: string; deadline: string; risk: string };
  /** conflict: what the service said when an approval met a record someone else changed (lib/review). */
  "review_item.escalated": { kind?: string; conflict?: Record<string, unknown> } | null;
  "review_item.approved": { decision: string; evidence: string | null };
  "review_item.rejected": { decision: string; evidence: string | null };
  /** finding: what a person established about an uncertain outcome (took_effect, did_not_take_effect, cannot_tell). */
  "review_item.resolved": { decision: string; evidence: string | null; finding?: string } | null;
  /** Someone asked to undo finished work (lib/review/request-reversal.ts): one review item per reversible effect. */
  "reversal.requested": { reviewItems: string[]; irreversible: string[] };
  // ---- the cancellation engine -------------------------------------------------------------------------------
  "cancellation.planned": PlanRecord;
  /** One step of a cancellation: work item, action, success or failure (reason: what happened). */
  "cancellation.step": { action: string; success: boolean } & Record<string, unknown>;
  /** The one provider cancel / rollback of a child was sent (the fence's winner). */
  "cancellation.dispatched": { action: string };
  /** The service acknowledged that cancel: its "not committed" is final from now on. */
  "cancellation.withdrawn": null;
  /** The engine finished its full pass (Task.settledAt): the summary is no longer IN_PROGRESS. */
  "cancellation.settled": { openReviewItems: number };
  // ---- incidents (lib/incidents): a kill switch; taskId null ------------------------------------------------------
  /** A tool or token quarantined; reason: the incident's. */
  "incident.opened": { targetKind: string; target: string; inFlight: number };
  /** One operator asked to lift it (reason: why); another must confirm. */
  "incident.lift_requested": null;
  /** The lift was withdrawn or refused: the switch stays on. */
  "incident.lift_withdrawn": null;
  /** A second operator confirmed: from this commit its target may be scheduled and claimed again. */
  "incident.lifted": { requestedBy: string | null };
  // ---- the demo agent ----------------------------------------------------------------------------------------
  "agent.proposal": { version: number; proposal: unknown };
  "agent.proposal_confirmed": { version: number; proposal: unknown };
  // ---- the ledger's own writer, observed -------------------------------------------------------------------
  /** Written only by tests that observe the writer itself (transaction bounds, a frozen writer); `reason` names the probe. */
  "ledger.probe": null;
}

export type TaskEventType = keyof TaskEventData;
/** The task event types that may carry no `data`: their states and reason say it all. */
export type DatalessEventType = { [T in TaskEventType]: null extends TaskEventData[T] ? T : never }[TaskEventType];
/** Every type the ledger holds: task events (this file) and administration's (lib/auth/admin-events.ts). */
export type LedgerEventType = TaskEventType | AdminEventType;

/** Every task event type by name (admin events: lib/auth/admin-events.ts AdminEvent). */
export const LedgerEvent = {
  taskCreated: "task.created",
  taskCancelRequested: "task.cancel_requested",
  taskCancelled: "task.cancelled",
  taskCompleted: "task.completed",
  taskFailed: "task.failed",
  workItemScheduled: "work_item.scheduled",
  workItemClaimed: "work_item.claimed",
  workItemSubmitted: "work_item.submitted",
  workItemFinished: "work_item.finished",
  workItemCancelling: "work_item.cancelling",
  workItemUnrecoverable: "work_item.unrecoverable",
  workItemUncertain: "work_item.uncertain",
  workItemReconciled: "work_item.reconciled",
  workItemRemovedFromDispatch: "work_item.removed_from_dispatch",
  workItemPartialReported: "work_item.partial_reported",
  workItemProgress: "work_item.progress",
  workItemStopRequested: "work_item.stop_requested",
  workItemStopSettled: "work_item.stop_settled",
  leaseExpired: "lease.expired",
  leaseStaleTokenRejected: "lease.stale_token_rejected",
  checkpointPassed: "checkpoint.passed",
  checkpointRejected: "checkpoint.rejected",
  resourceHeld: "resource.held",
  resourceReleaseRequested: "resource.release_requested",
  resourceReleased: "resource.released",
  resourceOrphaned: "resource.orphaned",
  resourceStillHeld: "resource.still_held",
  resourceIntended: "resource.intended",
  resourceIntentBound: "resource.intent_bound",
  resourceIntentNotHeld: "resource.intent_not_held",
  resourceIntentUnresolved: "resource.intent_unresolved",
  sideEffectRecorded: "side_effect.recorded",
  sideEffectSettled: "side_effect.settled",
  sideEffectReconciled: "side_effect.reconciled",
  sideEffectCompensated: "side_effect.compensated",
  reviewItemOpened: "review_item.opened",
  reviewItemEscalated: "review_item.escalated",
  reviewItemApproved: "review_item.approved",
  reviewItemRejected: "review_item.rejected",
  reviewItemResolved: "review_item.resolved",
  reversalRequested: "reversal.requested",
  cancellationPlanned: "cancellation.planned",
  cancellationStep: "cancellation.step",
  cancellationDispatched: "cancellation.dispatched",
  cancellationWithdrawn: "cancellation.withdrawn",
  cancellationSettled: "cancellation.settled",
  incidentOpened: "incident.opened",
  incidentLiftRequested: "incident.lift_requested",
  incidentLiftWithdrawn: "incident.lift_withdrawn",
  incidentLifted: "incident.lifted",
  agentProposal: "agent.proposal",
  agentProposalConfirmed: "agent.proposal_confirmed",
  ledgerProbe: "ledger.probe",
} as const satisfies Record<string, TaskEventType>;

// Every type in the catalogue has its constant: adding a type without one does not compile.
type Unnamed = Exclude<TaskEventType, (typeof LedgerEvent)[keyof typeof LedgerEvent]>;
const everyTypeNamed: [Unnamed] extends [never] ? true : Unnamed = true;
void everyTypeNamed;

export const TASK_EVENT_TYPES = Object.values(LedgerEvent) as TaskEventType[];

/** Which entity each event is about (the `entityType` column). */
export type EventEntity =
  | "task"
  | "workItem"
  | "resource"
  | "resourceIntent"
  | "sideEffect"
  | "reviewItem"
  | "lease"
  | "checkpoint"
  | "token"
  | "account"
  | "escalationChannel"
  | "incident";

interface EventCommon {
  taskId?: string | null;
  workItemId?: string | null;
  entityType: EventEntity;
  entityId: string;
  actor: string;
  fromState?: string | null;
  toState?: string | null;
  reason?: string | null;
}

/** One task event as a writer appends it: its type from the catalogue, its data of that type's shape. */
export type EventInput = { [T in TaskEventType]: EventCommon & { type: T; data?: TaskEventData[T] } }[TaskEventType];

/** What Writer.event accepts: a task event, or an administrative one built by adminEvent(). */
export type AnyEventInput = EventInput | AdminEventInput;

/** `Omit` over each member of a union (the plain one would collapse the union to its common keys). */
export type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

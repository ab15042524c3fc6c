import { z } from "zod";
import { ResourceState, ReviewItemKind, ReviewItemStatus, SideEffectOutcome, StopScope, values } from "../../ledger/states";
import { StoredProgress } from "../../ledger/progress";
import { OUTCOME_KINDS, type OutcomeKind } from "../../outcomes/child-outcome";
import { PREVIEW_KINDS, type PreviewKind } from "../../outcomes/stop-preview";
import { TaskStanding } from "../../outcomes/task-standing";
import { ResourceOutcome } from "../../outcomes/resource-outcome";
import { id, isoDate, json, leaseToken } from "./primitives";
import { MechanismSchema, RiskLevelSchema, TaskStageSchema, WorkItemKindSchema, WorkItemStatusSchema } from "./enums";

// ---- resources -------------------------------------------------------------------------------------
export const TaskSchema = z.object({
  id,
  ownerId: z.string(),
  conversationId: z.string().nullable(),
  title: z.string(),
  riskLevel: RiskLevelSchema,
  stage: TaskStageSchema,
  intentVersion: z.number().int(),
  proposalVersion: z.number().int(),
  proposal: json.nullable(),
  cancelRequestedAt: isoDate.nullable(),
  cancelReason: z.string().nullable(),
  cancelRequestedBy: z.string().nullable(),
  cancelIntentVersion: z.number().int().nullable(),
  rowVersion: z.number().int(),
  createdAt: isoDate,
  updatedAt: isoDate,
  /** When the engine finished its pass after the Stop (the summary is IN_PROGRESS until then). */
  settledAt: isoDate.nullable(),
  /** The conversation turn this task answers (the chat's idempotency key on the message). */
  turnId: z.string().nullable(),
  /** When the agent completed or failed the task, and why it failed. */
  endedAt: isoDate.nullable(),
  endReason: z.string().nullable(),
});

export const WorkItemSchema = z.object({
  id,
  taskId: id,
  parentWorkItemId: z.string().nullable(),
  kind: WorkItemKindSchema,
  toolName: z.string(),
  correlationId: z.string(),
  input: json.nullable(),
  status: WorkItemStatusSchema,
  preparedIntentVersion: z.number().int(),
  proposalVersion: z.number().int().nullable(),
  mechanism: MechanismSchema,
  commitsEffect: z.boolean(),
  operationId: z.string().nullable(),
  providerRef: z.string().nullable(),
  idempotencyKey: z.string(),
  leaseOwner: z.string().nullable(),
  leaseExpiresAt: isoDate.nullable(),
  heartbeatAt: isoDate.nullable(),
  attempt: z.number().int(),
  partialResult: json.nullable(),
  partialComplete: z.boolean().nullable(),
  result: json.nullable(),
  progress: StoredProgress.nullable(),
  error: z.string().nullable(),
  reconcileDeadline: isoDate.nullable(),
  /** When its service last said the call still runs, after it left its worker (its resources are held by running work). */
  serviceRunningAt: isoDate.nullable().optional(),
  rowVersion: z.number().int(),
  createdAt: isoDate,
  startedAt: isoDate.nullable(),
  submittedAt: isoDate.nullable(),
  finishedAt: isoDate.nullable(),
  updatedAt: isoDate,
  /** The stop attempt's record: the one provider cancel / rollback sent, when it answered, whether the service acknowledged it. */
  checkpointPassedAt: isoDate.nullable(),
  cancelDispatchedAt: isoDate.nullable(),
  cancelDispatchAction: z.string().nullable(),
  cancelAnsweredAt: isoDate.nullable(),
  cancelWithdrawnAt: isoDate.nullable(),
  /** A Stop of this step alone, or of a step above it (stopRootId): when it was recorded, why, and when it settled. */
  stopRequestedAt: isoDate.nullable().optional(),
  stopReason: z.string().nullable().optional(),
  stopRootId: z.string().nullable().optional(),
  stopSettledAt: isoDate.nullable().optional(),
});

/** What a claim returns: the item plus the lease token, which only the claiming worker ever sees. */
export const ClaimedWorkItemSchema = WorkItemSchema.extend({
  leaseToken: z.string(),
  /** W3C trace context of this tool call's span (lib/observability): send it on as `traceparent` to join the task's trace. */
  traceparent: z.string().optional(),
});

export const ResourceSchema = z.object({
  id,
  taskId: id,
  workItemId: id,
  type: z.string(),
  handle: z.string(),
  state: z.enum(values(ResourceState)),
  attempts: z.number().int(),
  verifiedAt: isoDate.nullable(),
  createdAt: isoDate,
  updatedAt: isoDate,
  /**
   * In a task's detail: this (ORPHANED) resource stands for what the call may hold at a service that could not say —
   * written ahead, never named; its handle is the call's key. An operator checks; no release was tried.
   */
  serviceCouldNotSay: z.boolean().optional(),
});

export const SideEffectSchema = z.object({
  id,
  taskId: id,
  workItemId: id,
  operationId: z.string(),
  providerRef: z.string().nullable(),
  externalRecordId: z.string().nullable(),
  externalVersion: z.string().nullable(),
  reversible: z.boolean(),
  description: z.string().nullable(),
  outcome: z.enum(values(SideEffectOutcome)),
  createdAt: isoDate,
  updatedAt: isoDate,
  /** What the service says about the record: the version the agent's own write produced, the current one, later editors. */
  evidence: json.nullable(),
});

export const ReviewItemSchema = z.object({
  id,
  taskId: id,
  workItemId: z.string().nullable(),
  sideEffectId: z.string().nullable(),
  resourceId: z.string().nullable(),
  kind: z.enum(values(ReviewItemKind)),
  subject: z.string(),
  proposal: json.nullable(),
  deadline: isoDate,
  status: z.enum(values(ReviewItemStatus)),
  assignee: z.string().nullable(),
  requestedBy: z.string().nullable(),
  decidedBy: z.string().nullable(),
  decidedAt: isoDate.nullable(),
  resolution: z.string().nullable(),
  createdAt: isoDate,
  updatedAt: isoDate,
});

export const TaskDetailSchema = TaskSchema.extend({
  /** The owner's account e-mail when the owner is a person; null for a task a token owns. */
  ownerEmail: z.string().nullable().optional(),
  workItems: z.array(WorkItemSchema),
  resources: z.array(ResourceSchema),
  sideEffects: z.array(SideEffectSchema),
  reviewItems: z.array(ReviewItemSchema),
  /**
   * What a call may hold without a handle yet (issue 19, written ahead): its intents still open — declared before
   * its request left, not yet named by an answer or by its service. Absent from older servers.
   */
  openResourceIntents: z.array(z.object({ id, workItemId: id, type: z.string(), key: z.string(), createdAt: isoDate })).optional(),
});

export const TaskListSchema = z.object({
  tasks: z.array(
    TaskSchema.extend({
      workItemCount: z.number().int(),
      /** How many of its children ended (or stand) how, in the one outcome vocabulary (lib/outcomes). */
      outcomes: z.array(z.object({ kind: z.enum(OUTCOME_KINDS as [OutcomeKind, ...OutcomeKind[]]), count: z.number().int() })),
      /** The Stop's summary status (IN_PROGRESS until settlement); null when nobody pressed Stop. */
      stopStatus: z.enum(["IN_PROGRESS", "CANCELLED", "PARTIALLY_CANCELLED", "CANCELLATION_FAILED"]).nullable(),
      /** The task's pill in the one vocabulary (lib/outcomes taskStanding): a Stop with effects is not a clean Stop. */
      standing: z.enum(values(TaskStanding)),
      /** The owner's e-mail address when the owner is a person; null for a task a token owns. */
      ownerEmail: z.string().nullable(),
      /** The tools its steps called, each once. */
      tools: z.array(z.string()),
      /** External effects that took place, and those whose outcome is still unknown. */
      effects: z.object({ committed: z.number().int(), unknown: z.number().int() }),
      /** Review items still waiting for a person (open or escalated) and the earliest of their deadlines. */
      awaitingDecision: z.number().int(),
      nextDeadline: isoDate.nullable(),
      /** Steps whose outcome is not known yet. */
      uncertainSteps: z.number().int(),
    }),
  ),
  nextCursor: z.string().nullable(),
});

/** One ledger event: a discriminated union on `type` (lib/api/event-schemas.ts). */
export { LedgerEventRecordSchema, type LedgerEventRecord } from "../event-schemas";

export const CancellationBoundarySchema = z.object({
  taskId: id,
  intentVersion: z.number().int(),
  cancelRequestedAt: isoDate,
  reason: z.string().nullable(),
  requestedBy: z.string().nullable(),
  alreadyRequested: z.boolean(),
});
export const CancelResponseSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("boundary"), boundary: CancellationBoundarySchema }),
  /** The task had already ended: nothing is running, nothing was stopped, no boundary, no review item. */
  z.object({ kind: z.literal("already_finished"), taskId: id, stage: TaskStageSchema, endedAt: isoDate.nullable(), message: z.string() }),
]);

const NamedResourceSchema = z.object({ tool_call_id: z.string(), tool_name: z.string(), type: z.string(), handle: z.string() });
export const CancellationSummarySchema = z.object({
  task_id: id,
  /** What the Stop was for: task; work_item (ref: the stopped child; the summary covers it and its descendants); conversation; person; incident. */
  scope: z.object({ kind: z.enum(values(StopScope)), ref: z.string().nullable() }),
  status: z.enum(["IN_PROGRESS", "CANCELLED", "PARTIALLY_CANCELLED", "CANCELLATION_FAILED"]),
  cancel_requested_at: isoDate,
  cancelled_tool_calls: z
    .array(
      z.object({
        tool_call_id: z.string(),
        tool_name: z.string(),
        cancellation_status: z.enum(["CANCELLED", "CANCELLED_INCOMPLETE", "UNRECOVERABLE"]),
        partial_result: z.object({ marker: z.literal("PARTIAL_RESULT"), value: json }).nullable(),
        orphaned_resources: z.array(z.string()),
      }),
    )
    .describe(
      "Children alive at the Stop that it stopped, or that could not be stopped. CANCELLED: never started (removed from dispatch), or stopped — with partial_result when a complete, valid subset was kept; CANCELLED_INCOMPLETE: stopped, its partial result discarded; UNRECOVERABLE: could not be stopped (no way to stop it, or the service refused or ignored the cancel), still running or finished anyway (then also in completed_tool_calls). Not listed: a read we only stopped waiting for (the service may have answered it; a read changes nothing — outcome `abandoned` in tool_calls), and work that ended before the Stop.",
    ),
  orphaned_side_effects: z
    .array(z.object({ tool_name: z.string(), tool_call_id: z.string(), description: z.string() }))
    .describe(
      "Every effect the service confirmed took effect (an order placed, an email sent), with what becomes of it: a person decides by a deadline whether to reverse it, it was kept, or it cannot be undone.",
    ),
  completed_tool_calls: z
    .array(z.object({ tool_call_id: z.string(), tool_name: z.string(), status: z.string() }))
    .describe(
      "Children that ended at or after the Stop without being stopped: finished anyway, failed, or took effect (status `committed (reported late)` when a stop was reported before the service said it took effect). Work that finished before the Stop is not listed here; it is in tool_calls (outcome `completed_before_stop`).",
    ),
  uncertain_tool_calls: z
    .array(z.object({ tool_call_id: z.string(), tool_name: z.string(), status: z.string(), reconcile_deadline: isoDate.nullable() }))
    .describe(
      "Children whose outcome is not known yet: their service is being asked (until reconcile_deadline), or a person decides (an open review item; reconcile_deadline null when nothing can ask the service). After settlement they stay here until the answer is in.",
    ),
  /** When the engine finished its pass; null while the status is IN_PROGRESS. */
  settled_at: isoDate.nullable(),
  /** Every child with its outcome in the one vocabulary (lib/outcomes): kind, a badge's words, the full phrase. */
  tool_calls: z.array(
    z.object({
      tool_call_id: z.string(),
      tool_name: z.string(),
      status: WorkItemStatusSchema,
      outcome: z.object({ kind: z.enum(OUTCOME_KINDS as [OutcomeKind, ...OutcomeKind[]]), short: z.string(), label: z.string() }),
      /** The outcome as the Stop settled it, when it differs from the outcome now (issue 20: later facts are added, never written over it). */
      settled_outcome: z.object({ kind: z.enum(OUTCOME_KINDS as [OutcomeKind, ...OutcomeKind[]]), short: z.string(), label: z.string() }).optional(),
    }),
  ),
  /** What happened after the Stop settled, one line per child that ran on past it. */
  since_settlement: z.array(
    z.object({
      tool_call_id: z.string(),
      tool_name: z.string(),
      ended_after_stop_ms: z.number().int().nullable(),
      ignored_cancel: z.boolean(),
      sentence: z.string(),
    }),
  ),
  /** Each resource that could not be released: the call that held it, its type and handle. */
  orphaned_resources: z.array(NamedResourceSchema),
  /** Resources still held by a child that could not be stopped and still runs (verified once it ends). */
  held_resources: z.array(NamedResourceSchema),
  /**
   * Resources being released now: their step ended (after the Stop settled, or its service said it ended) and
   * Stopline releases and verifies them next — not yet released, not orphaned. Absent from older servers.
   */
  releasing_resources: z.array(NamedResourceSchema).optional(),
  /**
   * What a call may hold at its service without a handle yet (issue 19, written ahead): declared before its request
   * left, never named by an answer (its worker died, or the answer was lost). `outcome` may_be_held: Stopline asks
   * the service, then releases and verifies it; service_could_not_say: the service could not say, an operator has been
   * asked to check (no release was tried). Absent from older servers.
   */
  unconfirmed_resources: z
    .array(
      z.object({
        tool_call_id: z.string(),
        tool_name: z.string(),
        type: z.string(),
        outcome: z.enum([ResourceOutcome.mayBeHeld, ResourceOutcome.serviceCouldNotSay]).optional(),
      }),
    )
    .optional(),
  open_review_items: z.number().int(),
  /** Who recorded the Stop and the reason given (an incident's: the operator who opened it, and its reason). */
  stopped_by: z.object({ actor: z.string().nullable(), reason: z.string().nullable() }),
  user_message: z.string(),
});

/** What Stop would do now (GET /api/tasks/{id}/stop-preview): per child, the plan's action and the words for it. */
const PreviewChildSchema = z.object({
  tool_call_id: z.string(),
  work_item_id: id,
  tool_name: z.string(),
  action: z.enum(["abort", "await_partial", "rollback", "notify", "noop"]).nullable(),
  preview: z.object({
    kind: z.enum(PREVIEW_KINDS as [PreviewKind, ...PreviewKind[]]),
    headed_for: z.enum(OUTCOME_KINDS as [OutcomeKind, ...OutcomeKind[]]),
    short: z.string(),
    tone: z.enum(["neutral", "accent", "ok", "warn", "danger"]),
    sentence: z.string(),
    /** The sentence in two parts ("reports.export_report" + "will be cancelled at its service, …"): a page may name the step its own way. */
    subject: z.string(),
    predicate: z.string(),
  }),
});
export const StopPreviewSchema = z.discriminatedUnion("state", [
  z.object({
    task_id: id,
    state: z.literal("would_stop"),
    plan_source: z.literal("rules"),
    model_may_advise: z.boolean(),
    children: z.array(PreviewChildSchema),
    headline: z.string(),
    computed_at: isoDate,
  }),
  z.object({ task_id: id, state: z.literal("already_requested"), cancel_requested_at: isoDate, headline: z.string(), computed_at: isoDate }),
  z.object({ task_id: id, state: z.literal("already_finished"), stage: TaskStageSchema, headline: z.string(), computed_at: isoDate }),
]);

/** A Stop of one step and its descendants (POST /api/work-items/{id}/cancel): its boundary, at the step's scope. */
export const ChildCancelResponseSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("boundary"),
    boundary: z.object({
      workItemId: id,
      taskId: id,
      stopRequestedAt: isoDate,
      reason: z.string().nullable(),
      requestedBy: z.string().nullable(),
      descendants: z.number().int(),
      alreadyRequested: z.boolean(),
    }),
  }),
  /** The step (and everything under it) had already ended: nothing was changed. */
  z.object({ kind: z.literal("already_finished"), workItemId: id, taskId: id, status: WorkItemStatusSchema, message: z.string() }),
]);
/** A Stop of everything of a conversation or a person: one ordinary boundary per task still active. */
export const ManyCancelResponseSchema = z.object({
  scope: z.object({ kind: z.enum(values(StopScope)), ref: z.string() }),
  boundaries: z.array(CancellationBoundarySchema),
  alreadyFinished: z.array(id),
});
export const PersonParams = z.object({ ownerId: z.string().trim().min(1).max(200) });

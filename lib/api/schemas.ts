import { z } from "zod";
import {
  Mechanism,
  ResourceState,
  ReviewItemKind,
  ReviewItemStatus,
  RiskLevel,
  SideEffectOutcome,
  StopScope,
  IncidentState,
  IncidentTarget,
  TaskStage,
  TokenRole,
  values,
  WorkItemKind,
  WorkItemStatus,
} from "../ledger/states";
import { PERSON_ROLES, type PersonRole } from "../auth/permissions";
import { ADMIN_ENTITIES, ADMIN_EVENT_TYPES, type AdminEntity, type AdminEventType } from "../auth/admin-events";
import { ChannelKind, DeliveryKind, DeliveryStatus, EscalationTrigger } from "../escalation/states";
import { ChannelHealth } from "../escalation/channel-health";
import { ProgressReport, StoredProgress } from "../ledger/progress";
import { OUTCOME_KINDS, type OutcomeKind } from "../outcomes/child-outcome";
import { PREVIEW_KINDS, type PreviewKind } from "../outcomes/stop-preview";
import { TaskStanding } from "../outcomes/task-standing";
import { HOSTED_ACTIONS, HostedAnswerSchema, HostedPayloadSchema } from "../tools/hosted/actions";

/**
 * The shared zod schemas of the HTTP API: route handlers parse requests with them, the OpenAPI document is
 * generated from them, and the SDK parses responses with them. They import nothing server-only.
 */

const id = z.string().min(1).max(200);
const isoDate = z.iso.datetime({ offset: true });
const json = z.unknown();

export const TaskStageSchema = z.enum(values(TaskStage));
export const WorkItemStatusSchema = z.enum(values(WorkItemStatus));
export const WorkItemKindSchema = z.enum(values(WorkItemKind));
export const MechanismSchema = z.enum(values(Mechanism));
export const RiskLevelSchema = z.enum(values(RiskLevel));
export const TokenRoleSchema = z.enum(values(TokenRole));

// ---- path parameters -----------------------------------------------------------------------------
export const TaskParams = z.object({ taskId: id });
export const WorkItemParams = z.object({ id });

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
export { LedgerEventRecordSchema, type LedgerEventRecord } from "./event-schemas";

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
   * left, never named by an answer (its worker died, or the answer was lost). Stopline asks the service, then
   * releases and verifies it. Absent from older servers.
   */
  unconfirmed_resources: z.array(z.object({ tool_call_id: z.string(), tool_name: z.string(), type: z.string() })).optional(),
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

// ---- incidents (a kill switch) ------------------------------------------------------------------------
export const IncidentSchema = z.object({
  id,
  targetKind: z.enum(values(IncidentTarget)),
  target: z.string(),
  reason: z.string(),
  state: z.enum(values(IncidentState)),
  openedBy: z.string(),
  liftRequestedAt: isoDate.nullable(),
  liftRequestedBy: z.string().nullable(),
  liftReason: z.string().nullable(),
  liftedAt: isoDate.nullable(),
  liftedBy: z.string().nullable(),
  createdAt: isoDate,
  updatedAt: isoDate,
});
export const IncidentParams = z.object({ id });
export const IncidentTargetsSchema = z.object({
  tools: z.array(z.object({ name: z.string(), live: z.number().int() })),
  tokens: z.array(z.object({ id, name: z.string(), role: z.string(), prefix: z.string() })),
});
export const OpenIncidentBody = z.strictObject({
  targetKind: z.enum(values(IncidentTarget)),
  /** A tool's name, or an API token's id. */
  target: z.string().trim().min(1).max(200),
  reason: z.string().trim().min(1, "say why: the reason is shown to whoever is refused").max(1000),
});
export const LiftIncidentBody = z.strictObject({ reason: z.string().trim().min(1, "say why it is safe to lift").max(1000) });
export const EmptyBody = z.strictObject({});
export const OpenIncidentResponseSchema = z.object({
  incident: IncidentSchema,
  alreadyOpen: z.boolean(),
  stoppedWorkItems: z.array(id),
  stoppedTasks: z.array(id),
});
export const IncidentListSchema = z.object({
  incidents: z.array(z.object({ incident: IncidentSchema, on: z.boolean(), tasks: z.number().int(), openReviewItems: z.number().int() })),
});
export const IncidentDetailSchema = z.object({
  incident: IncidentSchema,
  on: z.boolean(),
  tasks: z.array(
    z.object({
      taskId: id,
      title: z.string(),
      stage: TaskStageSchema,
      ownerId: z.string(),
      steps: z.array(
        z.object({
          workItemId: id,
          toolName: z.string(),
          status: WorkItemStatusSchema,
          outcome: z.object({ kind: z.enum(OUTCOME_KINDS as [OutcomeKind, ...OutcomeKind[]]), short: z.string(), label: z.string(), moving: z.boolean() }),
        }),
      ),
      needsPerson: z.array(z.object({ id, kind: z.string(), subject: z.string(), deadline: isoDate, status: z.string() })),
    }),
  ),
  counts: z.object({ tasks: z.number().int(), steps: z.number().int(), stillStopping: z.number().int(), needsPerson: z.number().int() }),
});

export const HeartbeatResponseSchema = z.object({
  status: WorkItemStatusSchema,
  cancelRequested: z.boolean(),
  intentVersion: z.number().int(),
  leaseExpiresAt: isoDate,
});
export const CheckpointResponseSchema = z.object({ passed: z.literal(true), intentVersion: z.number().int(), proposalVersion: z.number().int() });
export const SubmissionResponseSchema = z.object({ workItem: WorkItemSchema, sideEffect: SideEffectSchema.nullable() });
export const ClaimResponseSchema = z.object({ workItem: ClaimedWorkItemSchema.nullable() });

export const ApiTokenSchema = z.object({ id, name: z.string(), role: TokenRoleSchema, prefix: z.string(), createdAt: isoDate });
/** The token itself is in this answer only: it is stored hashed and never shown again. */
export const CreatedTokenSchema = z.object({ token: z.string(), record: ApiTokenSchema });
export const SessionSchema = z.object({ name: z.string(), role: TokenRoleSchema });

export const ErrorSchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    details: z.record(z.string(), z.unknown()).optional(),
    issues: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  }),
});

// ---- request bodies and queries --------------------------------------------------------------------
/** Required text up to `max` characters; a longer one is refused with the limit named (never cut). */
const text = (max: number) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max, { message: `at most ${max.toLocaleString("en")} characters` });
/**
 * A version number as both databases store it (a 32-bit integer): PostgreSQL refuses a larger one, so SQLite
 * must not take it either (issue 11: the two databases accept the same inputs).
 */
const version = (min: number) => z.number().int().min(min).max(2_147_483_647);

export const CreateTaskBody = z.strictObject({
  title: text(500),
  conversationId: text(200).optional(),
  riskLevel: RiskLevelSchema.optional(),
  /** Defaults to the calling token's name. */
  ownerId: text(200).optional(),
});

export const ListTasksQuery = z.strictObject({
  status: z
    .string()
    .meta({ description: `comma-separated stages: ${Object.values(TaskStage).join(", ")}` })
    .optional()
    .transform((s, ctx) => {
      if (!s) return undefined;
      const parts = s
        .split(",")
        .map((p) => p.trim())
        .filter(Boolean);
      for (const p of parts) {
        if (!TaskStageSchema.safeParse(p).success) {
          ctx.addIssue({ code: "custom", message: `unknown status "${p}"; one of ${Object.values(TaskStage).join(", ")}` });
          return z.NEVER;
        }
      }
      return parts;
    }),
  conversationId: text(200).optional(),
  limit: z.coerce.number().int().min(1).max(200).optional(),
  before: id.optional(),
});

export const ScheduleWorkItemBody = z.strictObject({
  kind: WorkItemKindSchema,
  toolName: text(200),
  mechanism: MechanismSchema,
  intentVersion: version(1),
  proposalVersion: version(0).nullable().optional(),
  commitsEffect: z.boolean().optional(),
  correlationId: text(200).optional(),
  idempotencyKey: text(300).optional(),
  parentWorkItemId: id.optional(),
  input: json.optional(),
});

export const StartWorkItemBody = ScheduleWorkItemBody.extend({
  workerId: text(200),
  leaseMs: z.number().int().min(1000).max(3_600_000).optional(),
});

export const CancelBody = z.strictObject({ reason: z.string().trim().max(1000).optional() });

export const ClaimBody = z.strictObject({
  workerId: text(200),
  toolNames: z.array(text(200)).min(1).max(100).optional(),
  leaseMs: z.number().int().min(1000).max(3_600_000).optional(),
});

const leaseToken = text(200);
export const HeartbeatBody = z.strictObject({ leaseToken, leaseMs: z.number().int().min(1000).max(3_600_000).optional() });
export const CheckpointBody = z.strictObject({
  leaseToken,
  intentVersion: version(1).optional(),
  proposalVersion: version(0).nullable().optional(),
});
export const SubmittedBody = z.strictObject({
  leaseToken,
  operationId: text(300),
  providerRef: text(300).optional(),
  externalRecordId: text(300).optional(),
  externalVersion: text(200).optional(),
  reversible: z.boolean().optional(),
  description: text(1000).optional(),
});
export const CompleteBody = z
  .strictObject({
    leaseToken,
    outcome: z.enum(["completed", "failed", "cancelled", "partial", "cancelled_incomplete"]),
    result: json.optional(),
    partialResult: json.optional(),
    partialComplete: z.boolean().optional(),
    error: z.string().max(5000).optional(),
    externalRecordId: text(300).optional(),
    externalVersion: text(200).optional(),
  })
  .refine((b) => b.outcome !== "failed" || !!b.error, { message: "a failed outcome needs an error", path: ["error"] });

export const EventsQuery = z.strictObject({
  lastEventId: z.coerce.number().int().min(0).max(2_147_483_647).optional(),
});

export const SessionBody = z.strictObject({ token: text(500) });
export const CreateTokenBody = z.strictObject({ name: text(100), role: TokenRoleSchema });

export const ReviewItemParams = z.object({ id });
export const ListReviewItemsQuery = z.strictObject({
  status: z.enum(values(ReviewItemStatus)).optional(),
  taskId: id.optional(),
});
export const ReviewItemListSchema = z.object({ reviewItems: z.array(ReviewItemSchema) });
export const DecisionBody = z.strictObject({
  decision: z.enum(["approve", "reject", "resolve"]),
  reason: text(2000),
  evidence: z.string().trim().max(5000).optional(),
  /** For resolving an uncertain outcome: what happened — it updates the side effect, the summary and the person's chat. */
  finding: z.enum(["took_effect", "did_not_take_effect", "cannot_tell"]).optional(),
  /** For approve: the proposal's target record and version, repeated exactly as shown. */
  target: z.string().max(300).nullable().optional(),
  expectedVersion: z.string().max(200).nullable().optional(),
  /** Closing an orphaned resource that no re-query verified released: the person confirms they know it is not verified
   * (with evidence of what they did); the person's chat keeps saying it was not released. */
  confirmNotVerifiedReleased: z.literal(true).optional(),
});
export const RetryReleaseResponseSchema = z.object({ released: z.boolean(), status: z.enum(values(ReviewItemStatus)), detail: z.string() });
export const DecisionResponseSchema = z.object({
  status: z.enum(values(ReviewItemStatus)),
  compensation: z.object({ status: z.enum(["compensated", "conflict", "failed"]), detail: z.string() }).optional(),
});
const Latency = z.object({ count: z.number().int(), p50_ms: z.number().nullable(), p99_ms: z.number().nullable(), max_ms: z.number().nullable() });
export const MetricsSchema = z.object({
  generation_cancellations: Latency,
  action_cancellations: z.object({ stopped: Latency, reconciled_or_finished: Latency }),
  tasks: z.object({ stopped: z.number().int(), settled: z.number().int() }),
});
export const MetricsQuery = z.strictObject({ since: z.iso.datetime({ offset: true }).optional() });

// ---- the demo agent --------------------------------------------------------------------------------
export const ConversationParams = z.object({ conversationId: id });
/** A turn's id: chosen by the client before it sends the message, so that a Stop can name the turn before its task exists. */
export const TurnId = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .regex(/^[\w.:-]+$/, "letters, digits and . _ : - only");
export const MessageBody = z.strictObject({
  text: text(2000),
  /** The idempotency key of this turn: a repeat with the same id answers the first; a Stop for it (…/turns/{turnId}/cancel) may come first. */
  turnId: TurnId.optional(),
});
export const TurnParams = z.object({ conversationId: id, turnId: TurnId });
export const StopTurnBody = z.strictObject({
  reason: z.string().trim().max(1000).optional(),
  /** The message's text, when the Stop arrives before the message: the task it creates carries it as its title. */
  text: z.string().trim().min(1).max(2000).optional(),
});
const ProposalItems = z
  .array(z.strictObject({ sku: text(50), quantity: z.number().int().min(1).max(1000) }))
  .min(1)
  .max(20);
export const EditProposalBody = z.strictObject({ items: ProposalItems, expectedVersion: version(1) });
export const ConfirmProposalBody = z.strictObject({ proposalVersion: version(1) });
export const TurnSchema = z.object({
  taskId: id,
  intent: z.enum(["order", "export", "record_and_email", "question", "unknown"]),
  reply: z.string(),
  proposal: z.record(z.string(), z.unknown()).nullable(),
});
export const ProposalSchemaOut = z.record(z.string(), z.unknown());
export const ConfirmationSchema = z.object({ taskId: id, proposalVersion: z.number().int(), workItems: z.array(id), alreadyConfirmed: z.boolean() });

// ---- a task's end, and undoing what it did -----------------------------------------------------------
export const CompleteTaskBody = z.strictObject({ note: z.string().trim().max(2000).optional() });
export const FailTaskBody = z.strictObject({ error: text(2000) });
export const FinishTaskResponseSchema = z.object({
  task: TaskSchema,
  /** True when the task had already ended this way (a repeat changes nothing). */
  alreadyFinished: z.boolean(),
});
export const ReversalBody = z.strictObject({ reason: text(1000) });
export const ReversalResponseSchema = z.object({
  taskId: id,
  /** One approve_compensation review item per reversible effect (bound to the version the agent's write produced). */
  reviewItems: z.array(ReviewItemSchema),
  /** Effects nothing can undo (an email sent): reported, not proposed. */
  irreversible: z.array(z.object({ sideEffectId: id, description: z.string() })),
  /** What happens next, in plain words. */
  message: z.string(),
});

// ---- escalation channels and their delivery log ------------------------------------------------------
export const EscalationChannelKindSchema = z.enum(values(ChannelKind));
export const EscalationChannelParams = z.object({ id });
/** A channel as the API shows it: never the secret, and only a preview of the URL (a Slack URL is a credential). */
export const EscalationChannelSchema = z.object({
  id,
  name: z.string(),
  kind: EscalationChannelKindSchema,
  urlPreview: z.string(),
  hasSecret: z.boolean(),
  active: z.boolean(),
  createdAt: isoDate,
});
/** A channel's health, derived from its delivery log (lib/escalation/channel-health.ts). */
export const ChannelHealthSchema = z.object({
  health: z.enum(values(ChannelHealth)),
  lastSuccessAt: isoDate.nullable(),
  lastFailureAt: isoDate.nullable(),
  consecutiveFailures: z.number().int(),
  attempts: z.number().int(),
});
export const EscalationTestSchema = z.object({ delivery: z.object({ id, status: z.enum(values(DeliveryStatus)), createdAt: isoDate }) });
export const EscalationChannelListSchema = z.object({ channels: z.array(EscalationChannelSchema.extend({ health: ChannelHealthSchema })) });
export const CreateEscalationChannelBody = z
  .strictObject({
    name: text(100),
    kind: EscalationChannelKindSchema,
    url: z.url({ protocol: /^https?$/, error: "an http(s) URL" }).max(2000),
    /** The shared HMAC secret (stored as given, never returned). Required for webhooks; optional for Slack. */
    secret: z.string().min(16, "at least 16 characters").max(500).optional(),
  })
  .refine((b) => b.kind !== ChannelKind.webhook || b.secret !== undefined, {
    message: "a webhook channel needs a secret (at least 16 characters) to sign its deliveries",
    path: ["secret"],
  });
export const ListEscalationsQuery = z.strictObject({
  reviewItemId: id.optional(),
  taskId: id.optional(),
  channelId: id.optional(),
  status: z.enum(values(DeliveryStatus)).optional(),
  kind: z.enum(values(DeliveryKind)).optional(),
  limit: z.coerce.number().int().min(1).max(500).optional(),
});
export const EscalationDeliverySchema = z.object({
  id,
  channelId: id,
  channel: z.object({ id, name: z.string(), kind: EscalationChannelKindSchema, active: z.boolean() }),
  reviewItemId: id,
  taskId: id,
  kind: z.enum(values(DeliveryKind)),
  status: z.enum(values(DeliveryStatus)),
  attempts: z.number().int(),
  nextAttemptAt: isoDate,
  lastAttemptAt: isoDate.nullable(),
  lastError: z.string().nullable(),
  responseStatus: z.number().int().nullable(),
  attemptLog: z.array(
    z.object({ attempt: z.number().int(), at: isoDate, status: z.number().int().nullable(), error: z.string().nullable(), durationMs: z.number() }),
  ),
  /** Exactly the JSON body sent to the channel. */
  payload: json,
  createdAt: isoDate,
  deliveredAt: isoDate.nullable(),
  /** The review item it is about, as it is now (its decision, once decided). */
  reviewItem: z
    .object({
      id,
      kind: z.enum(values(ReviewItemKind)),
      subject: z.string(),
      status: z.enum(values(ReviewItemStatus)),
      deadline: isoDate,
      decidedBy: z.string().nullable(),
      decidedAt: isoDate.nullable(),
      resolution: z.string().nullable(),
    })
    .nullable(),
  task: z.object({ id, title: z.string() }).nullable(),
  /** An escalation sent to a channel added after the item escalated (it was still open then). */
  late: z.boolean(),
  /** Why the item was escalated (for a close-out: why its escalation was sent), and the recorded reason. */
  trigger: z.enum(values(EscalationTrigger)),
  reason: z.string().nullable(),
});
export const EscalationDeliveryListSchema = z.object({ deliveries: z.array(EscalationDeliverySchema) });

// ---- more of the worker protocol -------------------------------------------------------------------
export const PartialBody = z.strictObject({ leaseToken: text(200), result: json, complete: z.boolean() });
export const ProgressBody = z.strictObject({ leaseToken: text(200), ...ProgressReport.shape });
export const ProgressSchema = StoredProgress;
export const UncertainBody = z.strictObject({ leaseToken: text(200), reason: text(2000) });

// Tools hosted by their owners (issue 23): a process that runs tools itself answers the engine's questions about them.
export const RegisterToolHostBody = z.strictObject({
  hostId: text(200),
  tools: z
    .array(
      z.strictObject({
        name: text(200),
        capabilities: z.array(z.enum(HOSTED_ACTIONS)).max(4),
        risk: z.enum(values(RiskLevel)),
        mechanism: z.enum(values(Mechanism)),
        commitsEffect: z.boolean(),
      }),
    )
    .min(1)
    .max(200),
  leaseMs: z.number().int().min(5_000).max(600_000).optional(),
});
export const ToolHostSchema = z.object({ hostId: z.string(), tools: z.array(z.string()), expiresAt: isoDate });
export const ClaimToolRequestsBody = z.strictObject({
  hostId: text(200),
  /** How long to wait for a question when there is none yet (a long poll; default 10 s). */
  waitMs: z.number().int().min(0).max(25_000).optional(),
  max: z.number().int().min(1).max(50).optional(),
  leaseMs: z.number().int().min(5_000).max(600_000).optional(),
});
export const ToolRequestsSchema = z.object({
  requests: z.array(z.object({ id, toolName: z.string(), action: z.enum(HOSTED_ACTIONS), payload: HostedPayloadSchema, expiresAt: isoDate })),
});
export const ToolRequestParams = z.object({ id });
export const AnswerToolRequestBody = z.strictObject({ hostId: text(200), answer: HostedAnswerSchema });
export const ToolRequestAnswerSchema = z.object({ id, accepted: z.boolean() });
export const ResourceBody = z.strictObject({ leaseToken: text(200), type: text(100), handle: text(500) });
/** Written ahead (issue 19): the kinds of resource a call may hold, recorded before its request leaves. */
export const ResourceIntentsBody = z.strictObject({ leaseToken: text(200), types: z.array(text(100)).min(1).max(20) });
/** The call returned its answer: intents it never named hold nothing. */
export const SettleResourceIntentsBody = z.strictObject({ leaseToken: text(200) });
export const ResourceIntentsSchema = z.object({ intents: z.number().int() });
export const OkSchema = z.object({ ok: z.literal(true) });

// ---- the demo world's fault controls (console and API) --------------------------------------------
// Mirrors of lib/demo/store.ts SERVICES and lib/demo/faults.ts FaultsSchema: those modules reach the demo
// services' SQLite store, which the SDK must not import. app/api/__tests__/demo-controls.int.test.ts checks
// that they stay identical.
export const DEMO_SERVICES = ["shop", "crm", "mailer", "reports", "inference"] as const;
export const DemoServiceNameSchema = z.enum(DEMO_SERVICES);
export const DemoFaultsSchema = z.strictObject({
  /** Added to every answer. */
  latencyMs: z.number().int().min(0).max(60_000).optional(),
  /** The action commits, but the caller gets no answer (it hangs until the caller gives up). */
  acceptThenTimeout: z.boolean().optional(),
  /** The cancel endpoint answers 503. */
  cancelUnavailable: z.boolean().optional(),
  /** Cancel is acknowledged (202) but ignored: the job or order carries on. */
  ignoreCancellation: z.boolean().optional(),
  /** Releasing a lock or temp file does nothing. */
  failToRelease: z.boolean().optional(),
  /** Right after a record is created, "other staff" edit it (its version moves on). */
  someoneElseEdits: z.boolean().optional(),
});
export const DemoFaultNameSchema = z.enum(["latencyMs", "acceptThenTimeout", "cancelUnavailable", "ignoreCancellation", "failToRelease", "someoneElseEdits"]);
/** The service is checked by the handler (an unknown one is 404, not 400). */
export const DemoServiceParams = z.object({
  service: z
    .string()
    .min(1)
    .max(50)
    .describe(`one of ${DEMO_SERVICES.join(", ")}`),
});
export const DemoServiceSchema = z.object({
  name: DemoServiceNameSchema,
  description: z.string(),
  /** The service-wide fault controls in force (a call's own X-Demo-Faults header overrides them). */
  faults: DemoFaultsSchema,
  /** The fault controls this service acts on (the others are accepted but change nothing it does). */
  applicableFaults: z.array(DemoFaultNameSchema),
});
export const DemoServiceListSchema = z.object({ demoUrl: z.string(), services: z.array(DemoServiceSchema) });
export const DemoServiceFaultsSchema = z.object({ service: DemoServiceNameSchema, faults: DemoFaultsSchema });
export const DemoWitnessQuery = z.strictObject({
  /** Only entries after this sequence number (for polling). */
  afterSeq: z.coerce.number().int().min(0).max(2_147_483_647).optional(),
  /** At most this many — the most recent ones (default 100). */
  limit: z.coerce.number().int().min(1).max(1000).optional(),
});
export const DemoWitnessEntrySchema = z.object({
  seq: z.number().int(),
  service: DemoServiceNameSchema,
  action: z.string(),
  subject: z.string().nullable(),
  detail: json,
  at: isoDate,
});
export const DemoWitnessSchema = z.object({
  service: DemoServiceNameSchema,
  /** Oldest first. */
  witness: z.array(DemoWitnessEntrySchema),
  /** Entries after afterSeq that were left out by the limit (older ones). */
  omitted: z.number().int(),
});

// ---- the audit -------------------------------------------------------------------------------------
export const AuditQuery = z
  .strictObject({
    ownerId: z.string().trim().min(1).max(200).optional(),
    /** A person: their account e-mail (any case) or user id, or any task owner id. */
    user: z.string().trim().min(1).max(320).meta({ description: "the task owner: an account e-mail (any case), a user id, or an owner id" }).optional(),
    conversationId: z.string().trim().min(1).max(200).optional(),
    taskId: z.string().trim().min(1).max(200).optional(),
    tool: z.string().trim().min(1).max(200).optional(),
    from: isoDate.optional(),
    to: isoDate.optional(),
    format: z.enum(["json", "csv"]).optional(),
  })
  .refine((q) => !q.from || !q.to || Date.parse(q.from) <= Date.parse(q.to), { message: "from must not be after to", path: ["from"] });
const AuditDecisionSchema = z.object({
  reviewItemId: z.string(),
  kind: z.string(),
  event: z.string(),
  actor: z.string(),
  at: isoDate,
  reason: z.string().nullable(),
});
export const AuditReportSchema = z.object({
  filter: z.record(z.string(), z.unknown()),
  generatedAt: isoDate,
  tasks: z.array(
    z.object({
      id,
      title: z.string(),
      ownerId: z.string(),
      ownerEmail: z.string().nullable(),
      conversationId: z.string().nullable(),
      stage: z.string(),
      riskLevel: z.string(),
      createdAt: isoDate,
      cancelRequestedAt: isoDate.nullable(),
      cancelRequestedBy: z.string().nullable(),
      cancelReason: z.string().nullable(),
      settledAt: isoDate.nullable(),
      endedAt: isoDate.nullable(),
      endReason: z.string().nullable().optional(),
      /** Each step's outcome in the one vocabulary (lib/outcomes); times in UTC. */
      outcomes: z.array(
        z.object({
          workItemId: id,
          toolCallId: z.string(),
          toolName: z.string(),
          kind: z.enum(OUTCOME_KINDS as [OutcomeKind, ...OutcomeKind[]]),
          short: z.string(),
          tone: z.enum(["neutral", "accent", "ok", "warn", "danger"]),
          label: z.string(),
        }),
      ),
    }),
  ),
  effects: z.array(
    z.object({
      sideEffectId: id,
      taskId: id,
      taskTitle: z.string(),
      ownerId: z.string(),
      ownerEmail: z.string().nullable(),
      conversationId: z.string().nullable(),
      workItemId: id,
      toolName: z.string(),
      operationId: z.string(),
      providerRef: z.string().nullable(),
      externalRecordId: z.string().nullable(),
      externalVersion: z.string().nullable(),
      reversible: z.boolean(),
      description: z.string().nullable(),
      outcome: z.string(),
      recordedAt: isoDate,
      updatedAt: isoDate,
      decisions: z.array(AuditDecisionSchema),
    }),
  ),
  compensations: z.array(
    z.object({
      sideEffectId: id,
      taskId: id,
      reviewItemId: id,
      externalRecordId: z.string().nullable(),
      boundToVersion: z.string().nullable(),
      status: z.string(),
      approvedBy: z.string().nullable(),
      decidedAt: isoDate.nullable(),
      resolution: z.string().nullable(),
    }),
  ),
  uncertain: z.array(
    z.object({
      taskId: id,
      kind: z.enum(["work_item", "side_effect", "review_item"]),
      id,
      toolName: z.string().nullable(),
      detail: z.string(),
      since: isoDate,
    }),
  ),
  /** Matching history that left the ledger under the retention policy, one entry per archive file (lib/retention). */
  archived: z.array(
    z.object({
      archivePath: z.string(),
      archivedAt: isoDate,
      taskCount: z.number().int(),
      firstSettledAt: isoDate,
      lastSettledAt: isoDate,
      line: z.string().meta({ description: '"Older history (N tasks settled before <date>) was archived on <date> to <path>."' }),
    }),
  ),
});

// ---- administration: API tokens and people's accounts (admin only) -------------------------------------
/** A stored token as the admin page lists it: its prefix, never its hash. */
export const ApiTokenListItemSchema = ApiTokenSchema.extend({ lastUsedAt: isoDate.nullable(), revokedAt: isoDate.nullable() });
export const ApiTokenListSchema = z.object({
  tokens: z.array(ApiTokenListItemSchema),
  /** STOPLINE_BOOTSTRAP_TOKEN: an admin token set in the server's environment (not stored, not revocable here). */
  bootstrap: z.object({ active: z.boolean() }),
});
export const ApiTokenParams = z.object({ id });

export const PersonRoleSchema = z.enum(PERSON_ROLES as [PersonRole, ...PersonRole[]]);
export const AccountParams = z.object({ id });
export const AccountSchema = z.object({
  id,
  name: z.string(),
  email: z.string(),
  role: PersonRoleSchema,
  createdAt: isoDate,
  disabledAt: isoDate.nullable(),
  activeSessions: z.number().int().meta({ description: "sessions that have not expired (browsers where the person is signed in)" }),
});
export const AccountListSchema = z.object({ accounts: z.array(AccountSchema) });
export const CreateAccountBody = z.strictObject({
  name: text(100),
  email: z
    .string()
    .trim()
    .toLowerCase()
    .max(254)
    .pipe(z.email({ message: "must be an e-mail address" })),
  role: PersonRoleSchema,
  password: z.string().min(8, { message: "must be at least 8 characters" }).max(128, { message: "must be at most 128 characters" }),
});
export const ChangeAccountRoleBody = z.strictObject({ role: PersonRoleSchema });

// ---- administration: the history of administrative changes (admin only) ---------------------------------
export const AdminEntitySchema = z.enum(ADMIN_ENTITIES as [AdminEntity, ...AdminEntity[]]);
export const AdminHistoryQuery = z.strictObject({
  /** Older than this ledger sequence number: the previous page's nextBefore. */
  before: z.coerce.number().int().min(1).max(2_147_483_647).optional(),
  limit: z.coerce.number().int().min(1).max(200).optional(),
  entityType: AdminEntitySchema.meta({ description: `only changes to one kind of thing: ${ADMIN_ENTITIES.join(", ")}` }).optional(),
});
export const AdminHistoryEventSchema = z.object({
  seq: z.number().int(),
  type: z.enum(ADMIN_EVENT_TYPES as [AdminEventType, ...AdminEventType[]]),
  entityType: AdminEntitySchema,
  entityId: z.string(),
  /** Who did it: `<role>:<e-mail or token name>` (system:setup for a token made on the server's command line). */
  actor: z.string(),
  fromState: z.string().nullable(),
  toState: z.string().nullable(),
  /** What changed (names, roles, address, prefix, URL preview) — never a token, hash, password or secret. */
  data: z.record(z.string(), json),
  /** The token's or channel's name, or the account's e-mail address, as it was then. */
  subject: z.string(),
  createdAt: isoDate,
});
export const AdminHistorySchema = z.object({
  /** Newest first. */
  events: z.array(AdminHistoryEventSchema),
  /** Pass as `before` for older events; null when there are none. */
  nextBefore: z.number().int().nullable(),
});

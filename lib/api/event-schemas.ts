import { z } from "zod";
import type { AdminEventData, AdminEventType } from "../auth/admin-events";
import type { LedgerEventType, TaskEventData, TaskEventType } from "../ledger/events";
import { StoredProgress } from "../ledger/progress";

/**
 * The ledger's events as the HTTP API sends them (GET /api/events, the SSE stream, a task's events): one
 * discriminated union on `type`, each member with its `data` shape. The catalogue (lib/ledger/events.ts
 * TaskEventData, lib/auth/admin-events.ts AdminEventData) stays the source; `EVENT_DATA` mirrors it and the
 * compiler checks the mirror: a type without a schema, or a schema whose output is not that type's data, does
 * not compile.
 *
 * Objects are loose: a field a later version adds reaches an older reader intact instead of failing it.
 * `data` is nullable for every type: a writer may append an event without data (EventInput's `data?`).
 */

const loose = z.looseObject;
const checkpointVersions = {
  preparedIntentVersion: z.number(),
  taskIntentVersion: z.number(),
  confirmedProposalVersion: z.number().nullable(),
  taskProposalVersion: z.number(),
};
const decision = loose({ decision: z.string(), evidence: z.string().nullable() });
const tokenFacts = loose({ name: z.string(), role: z.string(), prefix: z.string() });
const accountFacts = { email: z.string(), name: z.string(), role: z.string() };
const channelFacts = { name: z.string(), kind: z.string(), urlPreview: z.string(), hasSecret: z.boolean() };
const resolveBy = z.enum(["answer", "inspect"]);

type DataOf<T extends LedgerEventType> = T extends TaskEventType ? TaskEventData[T] : T extends AdminEventType ? AdminEventData[T] : never;

/** One schema per event type; `z.ZodType<DataOf<T>>` ties each to the catalogue. */
export const EVENT_DATA = {
  // ---- the task
  "task.created": loose({ title: z.string(), conversationId: z.string().nullable(), riskLevel: z.string(), turnId: z.string().nullable().optional() }),
  "task.cancel_requested": loose({
    intentVersion: z.number(),
    previousIntentVersion: z.number(),
    bornStopped: z.boolean().optional(),
    scope: z.string().optional(),
    scopeRef: z.string().nullable().optional(),
  }),
  "task.cancelled": z.null(),
  "task.completed": loose({ note: z.string().nullable() }),
  "task.failed": loose({ error: z.string() }),
  // ---- the children
  "work_item.scheduled": loose({ toolName: z.string(), kind: z.string(), mechanism: z.string(), inline: z.boolean().optional() }),
  "work_item.claimed": loose({ attempt: z.number(), leaseExpiresAt: z.string(), inline: z.boolean().optional() }),
  "work_item.submitted": loose({ operationId: z.string(), providerRef: z.string().nullable() }),
  "work_item.finished": z.null(),
  "work_item.cancelling": loose({ scope: z.literal("call") }).nullable(),
  "work_item.unrecoverable": z.null(),
  "work_item.uncertain": z.null(),
  "work_item.reconciled": z.null(),
  "work_item.removed_from_dispatch": z.null(),
  "work_item.partial_reported": loose({ complete: z.boolean() }),
  "work_item.progress": StoredProgress.loose(),
  "work_item.stop_requested": loose({ scope: z.literal("work_item"), descendantIds: z.array(z.string()), removedFromDispatch: z.number() }),
  "work_item.stop_settled": loose({ openReviewItems: z.number() }),
  // ---- leases and checkpoints
  "lease.expired": loose({
    leaseOwner: z.string().nullable(),
    attempt: z.number().optional(),
    operationId: z.string().nullable().optional(),
    processGone: z.boolean().optional(),
  }),
  "lease.stale_token_rejected": loose({ action: z.string(), presentedToken: z.string() }),
  "checkpoint.passed": loose(checkpointVersions),
  "checkpoint.rejected": loose({ ...checkpointVersions, code: z.string() }),
  // ---- resources
  "resource.held": loose({ type: z.string(), handle: z.string() }),
  "resource.release_requested": z.null(),
  "resource.released": loose({ attempt: z.number() }),
  "resource.orphaned": loose({ attempt: z.number() }),
  "resource.still_held": loose({ attempt: z.number() }),
  "resource.intended": loose({ type: z.string(), key: z.string() }),
  "resource.intent_bound": loose({ type: z.string(), handle: z.string(), resourceId: z.string(), by: resolveBy }),
  "resource.intent_not_held": loose({ type: z.string(), by: resolveBy }),
  "resource.intent_unresolved": loose({ type: z.string(), resourceId: z.string() }),
  // ---- external effects
  "side_effect.recorded": loose({ operationId: z.string(), reversible: z.boolean() }),
  "side_effect.settled": z.null(),
  "side_effect.reconciled": z.null(),
  "side_effect.compensated": z.null(),
  // ---- what only a person decides
  "review_item.opened": loose({ kind: z.string(), deadline: z.string(), risk: z.string() }),
  "review_item.escalated": loose({ kind: z.string().optional(), conflict: z.record(z.string(), z.unknown()).optional() }).nullable(),
  "review_item.approved": decision,
  "review_item.rejected": decision,
  "review_item.resolved": loose({ decision: z.string(), evidence: z.string().nullable(), finding: z.string().optional() }).nullable(),
  "reversal.requested": loose({ reviewItems: z.array(z.string()), irreversible: z.array(z.string()) }),
  // ---- the cancellation engine
  "cancellation.planned": loose({
    source: z.enum(["rules", "model"]),
    steps: z.array(loose({ tool_call_id: z.string(), action: z.string(), cleanup_steps: z.array(z.string()), user_message: z.string() })),
    fallbackReason: z.string().optional(),
    scope: z.literal("work_item").optional(),
  }),
  "cancellation.step": loose({ action: z.string(), success: z.boolean() }),
  "cancellation.dispatched": loose({ action: z.string() }),
  "cancellation.withdrawn": z.null(),
  "cancellation.settled": loose({ openReviewItems: z.number() }),
  // ---- incidents
  "incident.opened": loose({ targetKind: z.string(), target: z.string(), inFlight: z.number() }),
  "incident.lift_requested": z.null(),
  "incident.lift_withdrawn": z.null(),
  "incident.lifted": loose({ requestedBy: z.string().nullable() }),
  // ---- the demo agent
  "agent.proposal": loose({ version: z.number(), proposal: z.unknown() }),
  "agent.proposal_confirmed": loose({ version: z.number(), proposal: z.unknown() }),
  // ---- the ledger's own writer, observed
  "ledger.probe": z.null(),
  // ---- administration (lib/auth/admin-events.ts)
  "token.created": tokenFacts,
  "token.revoked": tokenFacts,
  "account.created": loose(accountFacts),
  "account.role_changed": loose({ email: z.string(), name: z.string(), from: z.string(), to: z.string() }),
  "account.disabled": loose({ ...accountFacts, sessionsEnded: z.number() }),
  "account.enabled": loose({ ...accountFacts, disabledSince: z.string() }),
  "escalation_channel.created": loose(channelFacts),
  "escalation_channel.removed": loose({ ...channelFacts, pendingDeliveriesFailed: z.number() }),
} as const satisfies { [T in LedgerEventType]: z.ZodType<DataOf<T>> };

/** Every ledger event type, task and administrative, in the catalogue's order. */
export const EVENT_TYPES = Object.keys(EVENT_DATA) as LedgerEventType[];

const eventFields = {
  seq: z.number().int(),
  taskId: z.string().nullable(),
  workItemId: z.string().nullable(),
  entityType: z.string(),
  entityId: z.string(),
  actor: z.string(),
  fromState: z.string().nullable(),
  toState: z.string().nullable(),
  reason: z.string().nullable(),
  createdAt: z.iso.datetime({ offset: true }),
};

type EventMember<T extends LedgerEventType> = z.ZodObject<typeof eventFields & { type: z.ZodLiteral<T>; data: z.ZodNullable<(typeof EVENT_DATA)[T]> }>;
const member = <T extends LedgerEventType>(type: T): EventMember<T> =>
  z.object({ ...eventFields, type: z.literal(type), data: EVENT_DATA[type].nullable() }) as EventMember<T>;

type AnyMember = { [T in LedgerEventType]: EventMember<T> }[LedgerEventType];

/** One ledger event as the API sends it: narrowing on `type` types its `data`. */
export const LedgerEventRecordSchema = z.discriminatedUnion("type", EVENT_TYPES.map(member) as unknown as [AnyMember, ...AnyMember[]]);
export type LedgerEventRecord = z.output<typeof LedgerEventRecordSchema>;

/** The fields every event has, `data` aside (what the docs page lists once, above the catalogue). */
export const LedgerEventFieldsSchema = z.object({ ...eventFields, type: z.enum(EVENT_TYPES as [LedgerEventType, ...LedgerEventType[]]) });

import { z } from "zod";
import { IncidentState, IncidentTarget, values } from "../../ledger/states";
import { OUTCOME_KINDS, type OutcomeKind } from "../../outcomes/child-outcome";
import { id, isoDate } from "./primitives";
import { TaskStageSchema, TokenRoleSchema, WorkItemStatusSchema } from "./enums";
import { ClaimedWorkItemSchema, SideEffectSchema, WorkItemSchema } from "./resources";

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

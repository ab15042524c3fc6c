import { z } from "zod";
import { ReviewItemStatus, TaskStage, values } from "../../ledger/states";
import { id, json, text, version, leaseToken } from "./primitives";
import { MechanismSchema, RiskLevelSchema, TaskStageSchema, TokenRoleSchema, WorkItemKindSchema } from "./enums";
import { ReviewItemSchema } from "./resources";

// ---- request bodies and queries --------------------------------------------------------------------
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
  toolNames: z.array(text(200)).min(1).max(100).optional().meta({
    description:
      "the tools this worker serves: the oldest claimable item of any of them is claimed, and the claim reads only their queues. Omitted: any tool (the whole queue is read and sorted — slower on a long queue)",
  }),
  leaseMs: z.number().int().min(1000).max(3_600_000).optional(),
});

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
/** What approving a compensation got from the service; "unknown": no answer in time (it may have acted). */
export const CompensationAnswerSchema = z.enum(["compensated", "conflict", "failed", "unknown"]);
export const DecisionResponseSchema = z.object({
  status: z.enum(values(ReviewItemStatus)),
  compensation: z.object({ status: CompensationAnswerSchema, detail: z.string() }).optional(),
});
const Latency = z.object({ count: z.number().int(), p50_ms: z.number().nullable(), p99_ms: z.number().nullable(), max_ms: z.number().nullable() });
export const MetricsSchema = z.object({
  generation_cancellations: Latency,
  action_cancellations: z.object({ stopped: Latency, reconciled_or_finished: Latency }),
  tasks: z.object({ stopped: z.number().int(), settled: z.number().int() }),
  /** Which Stops the figures cover: the latest `latest` (since `since`); `full`: older ones exist and are left out. */
  window: z.object({ latest: z.number().int(), since: z.string().nullable(), from: z.string().nullable(), full: z.boolean() }),
});
export const MetricsQuery = z.strictObject({ since: z.iso.datetime({ offset: true }).optional() });

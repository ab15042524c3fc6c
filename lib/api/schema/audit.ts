import { z } from "zod";
import { OUTCOME_KINDS, type OutcomeKind } from "../../outcomes/child-outcome";
import { id, isoDate, json } from "./primitives";

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

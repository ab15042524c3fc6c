import { z } from "zod";
import { id, text, version } from "./primitives";

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
// The edit writes expectedVersion + 1: at the column's limit that would overflow (a 500, found by the API fuzz), so
// the largest version it accepts is one less.
export const EditProposalBody = z.strictObject({ items: ProposalItems, expectedVersion: version(1).max(2_147_483_646) });
export const ConfirmProposalBody = z.strictObject({ proposalVersion: version(1) });
export const TurnSchema = z.object({
  taskId: id,
  intent: z.enum(["order", "export", "record_and_email", "question", "unknown"]),
  reply: z.string(),
  proposal: z.record(z.string(), z.unknown()).nullable(),
});
export const ProposalSchemaOut = z.record(z.string(), z.unknown());
export const ConfirmationSchema = z.object({ taskId: id, proposalVersion: z.number().int(), workItems: z.array(id), alreadyConfirmed: z.boolean() });

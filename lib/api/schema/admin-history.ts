import { z } from "zod";
import { ADMIN_ENTITIES, ADMIN_EVENT_TYPES, type AdminEntity, type AdminEventType } from "../../auth/admin-events";
import { isoDate, json } from "./primitives";

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

import { z } from "zod";
import { ReviewItemKind, ReviewItemStatus, values } from "../../ledger/states";
import { ChannelKind, DeliveryKind, DeliveryStatus, EscalationTrigger } from "../../escalation/states";
import { ChannelHealth } from "../../escalation/channel-health";
import { id, isoDate, json, text } from "./primitives";

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

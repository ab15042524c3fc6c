import { z } from "zod";
import { Mechanism, RiskLevel, values } from "../../ledger/states";
import { ProgressReport, StoredProgress } from "../../ledger/progress";
import { HOSTED_ACTIONS, HostedAnswerSchema, HostedPayloadSchema } from "../../tools/hosted/actions";
import { id, isoDate, json, text, leaseToken } from "./primitives";

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

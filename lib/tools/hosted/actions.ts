import { z } from "zod";

/**
 * Tools hosted by their owners (issue 23): what the engine may ask the process that runs a tool to do with a call of
 * it, and the shapes of question and answer — shared by the server (lib/tools/hosted) and the SDK (lib/sdk/host.ts).
 */
export const HostedAction = { inspect: "inspect", cancel: "cancel", rollback: "rollback", compensate: "compensate" } as const;
export type HostedAction = (typeof HostedAction)[keyof typeof HostedAction];
export const HOSTED_ACTIONS = Object.values(HostedAction) as [HostedAction, ...HostedAction[]];

const CallRefSchema = z.object({
  workItemId: z.string(),
  taskId: z.string(),
  toolCallId: z.string(),
  idempotencyKey: z.string(),
  operationId: z.string().nullable(),
  providerRef: z.string().nullable(),
  input: z.unknown(),
});
const EffectRefSchema = z.object({
  id: z.string(),
  workItemId: z.string(),
  operationId: z.string(),
  externalRecordId: z.string().nullable(),
  externalVersion: z.string().nullable(),
  description: z.string().nullable(),
});

/** What the host is asked: a call (inspect, cancel, rollback), or an effect to compensate at the version the agent produced. */
export const HostedPayloadSchema = z.union([z.object({ ref: CallRefSchema }), z.object({ effect: EffectRefSchema, expectedVersion: z.string().nullable() })]);
export type HostedPayload = z.infer<typeof HostedPayloadSchema>;

/** The tool's own answer (an InspectOutcome, a CompensationResult, or nothing for cancel/rollback), or its error. */
export const HostedAnswerSchema = z.union([
  z.object({ ok: z.literal(true), value: z.unknown() }),
  z.object({ ok: z.literal(false), error: z.string().max(4000) }),
]);
export type HostedAnswer = z.infer<typeof HostedAnswerSchema>;

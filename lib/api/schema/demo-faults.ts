import { z } from "zod";
import { isoDate, json } from "./primitives";

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

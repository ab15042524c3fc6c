import { z } from "zod";
import type { DemoDb, ServiceName } from "./store";

/**
 * Fault controls, per service (and per call: a call may carry its own in the `X-Demo-Faults` header).
 * Each one makes the service misbehave the way real systems do.
 */
export const FaultsSchema = z.strictObject({
  /** Added to every answer. */
  latencyMs: z.number().int().min(0).max(60_000).optional(),
  /** The action commits, but the caller gets no answer (it hangs until the caller gives up). */
  acceptThenTimeout: z.boolean().optional(),
  /** The cancel endpoint answers 503. */
  cancelUnavailable: z.boolean().optional(),
  /** Cancel is acknowledged (202) but ignored: the job or order carries on. */
  ignoreCancellation: z.boolean().optional(),
  /** Releasing does nothing: an export keeps its lock and temp file (reports), a draft stays (mailer; the discard answers with the draft still a draft). */
  failToRelease: z.boolean().optional(),
  /** Right after a record is created, "other staff" edit it (its version moves on). */
  someoneElseEdits: z.boolean().optional(),
});
export type Faults = z.infer<typeof FaultsSchema>;

export function getFaults(db: DemoDb, service: ServiceName): Faults {
  const row = db.prepare("SELECT settings FROM faults WHERE service = ?").get(service) as { settings: string } | undefined;
  return row ? FaultsSchema.parse(JSON.parse(row.settings)) : {};
}

export function setFaults(db: DemoDb, service: ServiceName, faults: Faults): Faults {
  const parsed = FaultsSchema.parse(faults);
  db.prepare("INSERT INTO faults (service, settings) VALUES (?, ?) ON CONFLICT(service) DO UPDATE SET settings = excluded.settings").run(
    service,
    JSON.stringify(parsed),
  );
  return parsed;
}

/** Service-wide settings, overridden by the call's own header. */
export function effectiveFaults(db: DemoDb, service: ServiceName, header: string | null): Faults {
  const base = getFaults(db, service);
  if (!header) return base;
  return { ...base, ...FaultsSchema.parse(JSON.parse(header)) };
}

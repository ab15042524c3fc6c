import { z } from "zod";
import { AppError, ErrorCode } from "../errors";
import { demoServicesUrl } from "../runtime/background";
import { FaultsSchema, type Faults } from "./faults";
import { SERVICES, type ServiceName, type WitnessEntry } from "./store";

/**
 * The console's (and the API's) side of the demo world's fault controls: reads and sets them, and reads
 * the witness logs, over HTTP at demoServicesUrl() — the demo services are the authoritative record, so
 * nothing here keeps a copy. Every answer is validated; when the services do not answer, the error says
 * so (AppError unavailable → 503) instead of pretending there are no faults.
 */

export type FaultName = keyof Faults;

/** Which fault controls each service acts on (lib/demo/server.ts); the others are accepted and do nothing there. */
export const SERVICE_FAULTS: Record<ServiceName, readonly FaultName[]> = {
  shop: ["latencyMs", "acceptThenTimeout", "cancelUnavailable", "ignoreCancellation"],
  crm: ["latencyMs", "acceptThenTimeout", "someoneElseEdits"],
  mailer: ["latencyMs", "acceptThenTimeout", "cancelUnavailable", "failToRelease"],
  reports: ["latencyMs", "cancelUnavailable", "ignoreCancellation", "failToRelease"],
  inference: ["latencyMs"],
};

export const SERVICE_DESCRIPTIONS: Record<ServiceName, string> = {
  shop: "Stock and orders with idempotency keys; an order can be cancelled until it ships.",
  crm: "Versioned customer records; archived only with If-Match of the version you saw.",
  mailer: "Drafts that can be discarded; a sent email cannot be unsent.",
  reports: "A long export that holds a lock and a temp file; a cancelled export keeps a complete prefix.",
  inference: "A streamed model-response stand-in for the demo agent; the generation stops when the caller goes away.",
};

const REQUEST_TIMEOUT_MS = 5_000;

const WitnessEntrySchema = z.object({
  seq: z.number().int(),
  service: z.enum(SERVICES),
  action: z.string(),
  subject: z.string().nullable(),
  detail: z.unknown(),
  at: z.string(),
});
const WitnessAnswer = z.object({ witness: z.array(WitnessEntrySchema) });

export const isDemoService = (name: string): name is ServiceName => (SERVICES as readonly string[]).includes(name);

/** The service, or a 404 naming the ones that exist. */
export function demoService(name: string): ServiceName {
  if (!isDemoService(name))
    throw new AppError(ErrorCode.notFound, `there is no demo service "${name}" (there are ${SERVICES.join(", ")})`, { service: name, services: [...SERVICES] });
  return name;
}

/** One call to the demo services, answered with the schema's data or an AppError that says what went wrong. */
async function demoCall<T>(method: "GET" | "POST", path: string, schema: z.ZodType<T>, body?: unknown): Promise<T> {
  const base = demoServicesUrl();
  if (process.env.STOPLINE_DEMO === "0") {
    throw new AppError(ErrorCode.unavailable, "the demo services are turned off in this process (STOPLINE_DEMO=0)", { demoUrl: base });
  }
  let response: Response;
  try {
    response = await fetch(new URL(path, base), {
      method,
      headers: body === undefined ? { accept: "application/json" } : { accept: "application/json", "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      cache: "no-store",
    });
  } catch (error) {
    const timedOut = (error as Error).name === "TimeoutError";
    throw new AppError(
      ErrorCode.unavailable,
      timedOut
        ? `the demo services at ${base} did not answer within ${REQUEST_TIMEOUT_MS / 1000} s`
        : `the demo services are not running at ${base} (npm start runs them unless STOPLINE_DEMO=0; STOPLINE_DEMO_URL or STOPLINE_DEMO_PORT move them)`,
      { demoUrl: base },
    );
  }
  const payload: unknown = await response.json().catch(() => null);
  if (!response.ok) {
    const message = (payload as { error?: unknown } | null)?.error;
    const said = typeof message === "string" ? message : `HTTP ${response.status}`;
    if (response.status === 400) throw new AppError(ErrorCode.badRequest, `the demo service refused the request: ${said}`, { demoUrl: base });
    throw new AppError(ErrorCode.unavailable, `the demo services at ${base} answered ${response.status} to ${method} ${path}: ${said}`, {
      demoUrl: base,
      status: response.status,
    });
  }
  const parsed = schema.safeParse(payload);
  if (!parsed.success) {
    throw new AppError(
      ErrorCode.unavailable,
      `the demo services at ${base} answered ${method} ${path} with something unexpected: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(body)"}: ${i.message}`).join("; ")}`,
      { demoUrl: base },
    );
  }
  return parsed.data;
}

/** The service-wide fault controls in force. */
export async function getServiceFaults(service: string): Promise<Faults> {
  const name = demoService(service);
  return demoCall("GET", `/${name}/faults`, FaultsSchema);
}

/** Replaces the service-wide fault controls (`{}` clears them); answers what the service now has. */
export async function setServiceFaults(service: string, faults: Faults): Promise<Faults> {
  const name = demoService(service);
  const input = FaultsSchema.safeParse(faults);
  if (!input.success) throw input.error; // → 400 naming each field
  return demoCall("POST", `/${name}/faults`, FaultsSchema, input.data);
}

/** The service's witness log — what it really did — oldest first; only the entries after `afterSeq` when given. */
export async function serviceWitness(service: string, afterSeq?: number): Promise<WitnessEntry[]> {
  const name = demoService(service);
  const { witness } = await demoCall("GET", `/${name}/witness`, WitnessAnswer);
  return afterSeq === undefined ? witness : witness.filter((entry) => entry.seq > afterSeq);
}

/** The most recent `limit` witness entries after `afterSeq` (oldest first), and how many earlier ones were left out. */
export async function recentWitness(service: string, options: { afterSeq?: number; limit?: number } = {}) {
  const name = demoService(service);
  const entries = await serviceWitness(name, options.afterSeq);
  const limit = options.limit ?? 100;
  const witness = entries.slice(-limit);
  return { service: name, witness, omitted: entries.length - witness.length };
}

/** Every demo service with its current fault controls and the ones it acts on. */
export async function listDemoServices() {
  const services = await Promise.all(
    SERVICES.map(async (name) => ({
      name,
      description: SERVICE_DESCRIPTIONS[name],
      faults: await getServiceFaults(name),
      applicableFaults: [...SERVICE_FAULTS[name]],
    })),
  );
  return { demoUrl: demoServicesUrl(), services };
}

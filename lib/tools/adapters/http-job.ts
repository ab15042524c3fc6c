import { z } from "zod";
import { traceHeaders } from "../../observability/tracing";
import { Mechanism, type RiskLevel, type WorkItemKind } from "../../ledger/states";
import type { CallRef, EffectRef, HeldByService, InspectOutcome, ResourceRef, ToolContext, ToolDefinition } from "../contract";

/**
 * The HTTP job adapter: a tool backed by a remote job with a start, a status and a cancel endpoint — the
 * shape of OpenAI's background responses (`queued`, `in_progress`, `completed`, `failed`, `cancelled`,
 * `incomplete`).
 *
 * How Stop reaches it (mechanism `provider_cancel`):
 * - `run` starts the job (with the work item's idempotency key), records the job id with `ctx.submitted()`
 *   at once, then polls. When the run's AbortSignal fires it stops polling and throws; the runner leaves the
 *   item `uncertain`, and the engine calls `cancel()` and then `inspect()`.
 * - `cancel()` POSTs the cancel endpoint. It is safe to repeat. An acknowledgement is NOT taken as proof:
 *   a job whose cancel was acknowledged can still complete, so the outcome is always re-queried.
 * - `inspect()` GETs the status and maps it: `completed` → committed (with the result); `cancelled` /
 *   `incomplete` → not committed (with the partial output, if the job kept one); `failed` → not committed;
 *   `queued` / `in_progress` → running; unreachable, unknown job, unrecognised status → unknown, with the
 *   reason. It never re-submits.
 *
 * What it does NOT guarantee: that the service honours the cancel, or that a `cancelled` job had no effect
 * beyond what the service reports. It reports what the service's status endpoint says, nothing more.
 */

export const JobStatus = {
  queued: "queued",
  inProgress: "in_progress",
  completed: "completed",
  failed: "failed",
  cancelled: "cancelled",
  incomplete: "incomplete",
} as const;
export type JobStatus = (typeof JobStatus)[keyof typeof JobStatus];

const RUNNING_JOB = new Set<string>([JobStatus.queued, JobStatus.inProgress]);
const TERMINAL_JOB = new Set<string>([JobStatus.completed, JobStatus.failed, JobStatus.cancelled, JobStatus.incomplete]);
export const isRunningJob = (s: string): boolean => RUNNING_JOB.has(s);
export const isTerminalJob = (s: string): boolean => TERMINAL_JOB.has(s);

/** What the adapter reads from a job document; anything else the service sends is kept as is. */
export const JobDocument = z.looseObject({
  id: z.string().min(1),
  status: z.string().min(1),
  output: z.unknown().optional(),
  error: z.unknown().optional(),
  incomplete_details: z.unknown().optional(),
});
export type JobDocument = z.infer<typeof JobDocument>;

/** The job a status or cancel URL is built for: its id when known, and always the call's idempotency key. */
export interface JobRef {
  id: string;
  idempotencyKey: string;
}

/** A URL, either a template (`{id}` and `{idempotencyKey}` are replaced, URL-encoded) or a function. */
export type JobUrl = string | ((job: JobRef) => string);

export interface HttpJobToolOptions<I> {
  name: string;
  kind: WorkItemKind;
  risk: RiskLevel;
  /** Does a job have an external effect? Then its start passes a checkpoint and a lost answer is uncertain. */
  commitsEffect: boolean;
  /** POST here to start a job; the body is `body(input)` (default: the input), with an `Idempotency-Key` header. */
  startUrl: string;
  /** GET here for the job's status document, e.g. `https://api.example.com/v1/responses/{id}`. */
  statusUrl: JobUrl;
  /** POST here to cancel the job, e.g. `https://api.example.com/v1/responses/{id}/cancel`. */
  cancelUrl: JobUrl;
  /**
   * Optional: GET here to find a job by idempotency key when no job id was recorded (the start's answer was
   * lost, or the worker died before `ctx.submitted()`). Without it such a call is `unknown` to inspect().
   */
  lookupUrl?: (idempotencyKey: string) => string;
  /** Extra headers on every request (authorization, API version). */
  headers?: Record<string, string> | (() => Record<string, string>);
  /** How often `run` polls the status (default 500 ms). */
  pollMs?: number;
  /** Each HTTP request gives up after this long (default 10 s). */
  requestTimeoutMs?: number;
  /** `run` gives up after this many consecutive failed status polls (default 5); the item is then uncertain. */
  pollFailuresTolerated?: number;
  input?: z.ZodType<I>;
  body?: (input: I) => unknown;
  /** The result of a completed job (default: its `output`, else the whole document). */
  result?: (job: JobDocument) => unknown;
  /**
   * Does the partial output of a cancelled / incomplete job form a complete, valid subset of the result
   * (kept as PARTIAL_RESULT)? Default: no — a truncated output is discarded (CANCELLED_INCOMPLETE).
   */
  partialComplete?: (job: JobDocument) => boolean;
  describeEffect?: (effect: EffectRef) => string;
  /**
   * Written ahead (lib/tools/contract.ts `resources`): what a job may hold at the service (a lock, a temp file …).
   * `kinds` are recorded in the ledger before the start request leaves; `holds(job)` reads from a job document what it
   * holds now (run() records it with ctx.holdResource as soon as the start answers; inspect() reports it as `holds`,
   * for a call whose start answer was lost); `cleanup` / `verifyReleased` release and verify one after a Stop.
   */
  resources?: {
    kinds: readonly string[];
    holds: (job: JobDocument) => HeldByService[];
    cleanup(resource: ResourceRef): Promise<void>;
    verifyReleased(resource: ResourceRef): Promise<boolean>;
  };
  /** For tests and custom agents (default: the global fetch). */
  fetch?: typeof fetch;
}

/** The job answered `failed`, `cancelled` or `incomplete` while `run` was waiting for it (not after a Stop). */
export class JobEndedError extends Error {
  override readonly name = "JobEndedError";
  constructor(readonly job: JobDocument) {
    super(`job ${job.id} ended ${job.status}${job.error ? `: ${stringify(job.error)}` : ""}`);
  }
}

export function httpJobTool<I = unknown>(options: HttpJobToolOptions<I>): ToolDefinition<I, unknown> {
  const o = { pollMs: 500, requestTimeoutMs: 10_000, pollFailuresTolerated: 5, ...options };
  const doFetch = o.fetch ?? fetch;
  // Job ids this process learned from a start, by idempotency key: lets cancel()/inspect() address a job whose
  // id reached us but not the ledger (ctx.submitted() refused after a Stop raced with the start).
  const known = new Map<string, string>();

  const headers = (extra: Record<string, string> = {}) =>
    traceHeaders({
      // the call's (or the Stop step's) traceparent
      accept: "application/json",
      ...(typeof o.headers === "function" ? o.headers() : (o.headers ?? {})),
      ...extra,
    });

  /** One HTTP request with a timeout (and the caller's signal, if any); answers status and parsed JSON. */
  async function request(method: "GET" | "POST", url: string, init: { body?: unknown; headers?: Record<string, string>; signal?: AbortSignal } = {}) {
    const timeout = AbortSignal.timeout(o.requestTimeoutMs);
    const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    const res = await doFetch(url, {
      method,
      headers: headers({ ...(init.body !== undefined ? { "content-type": "application/json" } : {}), ...init.headers }),
      body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
      signal,
    });
    const text = await res.text();
    let json: unknown = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    return { status: res.status, ok: res.ok, json, text };
  }

  const parseJob = (json: unknown, what: string): JobDocument => {
    const parsed = JobDocument.safeParse(json);
    if (!parsed.success)
      throw new Error(`${what}: the service answered something that is not a job document (${parsed.error.issues[0]?.message ?? "invalid"})`);
    return parsed.data;
  };

  const resultOf = (job: JobDocument) => (o.result ? o.result(job) : job.output !== undefined ? job.output : job);
  const partialOf = (job: JobDocument): InspectOutcome => {
    const partial = hasContent(job.output) ? job.output : undefined;
    return partial === undefined
      ? { status: "not_committed" }
      : { status: "not_committed", partialResult: partial, partialComplete: o.partialComplete?.(job) ?? false };
  };

  /** The job id of a call: recorded with the submission, learned in this process, or looked up by key. */
  async function jobIdOf(ref: CallRef): Promise<{ id: string } | { id: null; reason: string }> {
    const id = ref.providerRef ?? ref.operationId ?? known.get(ref.idempotencyKey);
    if (id) return { id };
    if (!o.lookupUrl) return { id: null, reason: "no job id was recorded for this call and no lookupUrl is configured to find it by idempotency key" };
    const res = await request("GET", o.lookupUrl(ref.idempotencyKey));
    if (res.status === 404) return { id: null, reason: `the service knows no job with idempotency key ${ref.idempotencyKey}` };
    if (!res.ok) return { id: null, reason: `the job lookup answered ${res.status}: ${res.text.slice(0, 200)}` };
    return { id: parseJob(res.json, "job lookup").id };
  }

  async function getJob(id: string, idempotencyKey: string, signal?: AbortSignal) {
    const res = await request("GET", urlOf(o.statusUrl, { id, idempotencyKey }), { signal });
    return res;
  }

  return {
    name: o.name,
    kind: o.kind,
    risk: o.risk,
    commitsEffect: o.commitsEffect,
    mechanism: Mechanism.providerCancel,
    input: o.input,

    async run(input: I, ctx: ToolContext) {
      // Nothing new starts after the boundary: the checkpoint is the versioned check right before the start.
      await ctx.checkpoint();
      // The start request is deliberately NOT tied to ctx.signal: once it left, its answer (the job id) is what
      // lets Stopline cancel and inspect the job. A Stop during it is handled right after, from the recorded id.
      const started = await request("POST", o.startUrl, {
        body: o.body ? o.body(input) : (input ?? {}),
        headers: traceHeaders({ "Idempotency-Key": ctx.idempotencyKey }, ctx.traceparent),
      });
      if (!started.ok) throw new Error(`${o.name}: the start endpoint answered ${started.status}: ${started.text.slice(0, 500)}`);
      let job = parseJob(started.json, `${o.name}: start`);
      known.set(ctx.idempotencyKey, job.id);
      await ctx.submitted(job.id, { providerRef: job.id, description: `${o.name} job ${job.id}` });
      for (const h of o.resources?.holds(job) ?? []) await ctx.holdResource(h.type, h.handle); // the answer names what the job took

      let failures = 0;
      for (;;) {
        if (job.status === JobStatus.completed) return resultOf(job);
        if (isTerminalJob(job.status)) throw new JobEndedError(job);
        if (!isRunningJob(job.status)) throw new Error(`${o.name}: job ${job.id} has an unrecognised status "${job.status}"`);
        await sleep(o.pollMs, ctx.signal); // throws the signal's reason on Stop: the engine cancels and inspects
        try {
          const res = await getJob(job.id, ctx.idempotencyKey, ctx.signal);
          if (!res.ok) throw new Error(`the status endpoint answered ${res.status}: ${res.text.slice(0, 200)}`);
          job = parseJob(res.json, `${o.name}: status`);
          failures = 0;
        } catch (error) {
          if (ctx.signal.aborted) throw ctx.signal.reason;
          if (++failures >= o.pollFailuresTolerated)
            throw new Error(`${o.name}: job ${job.id}: ${failures} status polls in a row failed; last: ${(error as Error).message}`);
        }
      }
    },

    async cancel(ref) {
      const job = await jobIdOf(ref);
      if (job.id === null) throw new Error(`cannot address the cancel: ${job.reason}`);
      const res = await request("POST", urlOf(o.cancelUrl, { id: job.id, idempotencyKey: ref.idempotencyKey }), {
        headers: { "Idempotency-Key": `${ref.idempotencyKey}:cancel` },
      });
      // 409: nothing left to cancel (already finished) — an answer, not a failure; inspect() says how it ended.
      if (res.ok || res.status === 409) return;
      throw new Error(`the cancel endpoint answered ${res.status}: ${res.text.slice(0, 200)}`);
    },

    async inspect(ref) {
      let job: JobDocument;
      try {
        const found = await jobIdOf(ref);
        if (found.id === null) return { status: "unknown", reason: found.reason };
        const res = await getJob(found.id, ref.idempotencyKey);
        if (res.status === 404) return { status: "unknown", reason: `the service does not know job ${found.id} (404)` };
        if (!res.ok) return { status: "unknown", reason: `the status endpoint answered ${res.status}: ${res.text.slice(0, 200)}` };
        job = parseJob(res.json, "status");
      } catch (error) {
        return { status: "unknown", reason: `the status endpoint is unreachable: ${(error as Error).message}` };
      }
      const holds = o.resources ? { holds: o.resources.holds(job) } : {}; // written ahead: what the job holds now
      return { ...outcomeOfJob(job), ...holds } as InspectOutcome;
    },
    ...(o.resources ? { resources: o.resources.kinds, cleanup: o.resources.cleanup, verifyReleased: o.resources.verifyReleased } : {}),

    describeEffect: o.describeEffect ?? ((effect) => effect.description ?? `${o.name} job ${effect.externalRecordId ?? effect.operationId}`),
  };

  function outcomeOfJob(job: JobDocument): InspectOutcome {
    switch (job.status) {
      case JobStatus.completed:
        return { status: "committed", result: resultOf(job), externalRecordId: job.id, description: `${o.name} job ${job.id} completed` };
      case JobStatus.cancelled:
      case JobStatus.incomplete:
        return partialOf(job);
      case JobStatus.failed:
        return { status: "not_committed" };
      case JobStatus.queued:
      case JobStatus.inProgress:
        return { status: "running" };
      default:
        return { status: "unknown", reason: `job ${job.id} has an unrecognised status "${job.status}"` };
    }
  }
}

export function urlOf(url: JobUrl, job: JobRef): string {
  if (typeof url === "function") return url(job);
  return url.replaceAll("{id}", encodeURIComponent(job.id)).replaceAll("{idempotencyKey}", encodeURIComponent(job.idempotencyKey));
}

const hasContent = (v: unknown) => v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0) && !(typeof v === "string" && v.length === 0);

const stringify = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v)).slice(0, 500);

/** Waits `ms`, or throws the signal's reason as soon as it fires. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

import { contract, type RouteContract } from "../api/contract";
import type { CallOptions, RouteName, StoplineClientOptions } from "./client-types";
import { errorFromBody, InvalidResponseError, NetworkError, SdkErrorCode } from "./errors";
import { backoffDelay, isRetryableStatus, parseRetryAfter, resolveRetry, type ResolvedRetry } from "./retry";

// The connection every part of the client shares (client.ts, event-stream.ts): not exported from the package.

/**
 * Whether a call may be sent again after an answer that leaves its fate unknown (network error, timeout,
 * 408/429/5xx):
 * - `idempotent`: repeating it cannot do anything twice (reads; Stop; the worker protocol, which is keyed by
 *   the lease token and the operation id; a schedule with a correlationId/idempotencyKey);
 * - `once`: it is sent again only when the request provably never reached the server (connection refused,
 *   unknown host) — a lost answer is not retried, because the first attempt may have taken effect.
 */
export type Repeat = "idempotent" | "once";

/** Routes not listed here (e.g. one added to the contract later) are `once`: never re-sent unless provably unsent. */
export const REPEAT: Partial<Record<RouteName, Repeat>> = {
  createTask: "once", // the API has no idempotency key for tasks: a repeat could create a second task
  listTasks: "idempotent",
  getTask: "idempotent",
  // Never re-sent: a lost answer leaves an item leased to nobody, which lease recovery then handles.
  startWorkItem: "once",
  scheduleWorkItem: "once", // idempotent when a correlationId or idempotencyKey is given (see scheduleWorkItem)
  cancelTask: "idempotent", // a repeated Stop returns the first boundary (invariant 7)
  completeTask: "idempotent", // a repeat answers alreadyFinished
  failTask: "idempotent",
  getCancellation: "idempotent",
  stopPreview: "idempotent",
  stopWorkItem: "idempotent", // a repeated Stop of a step returns its first boundary
  getWorkItemCancellation: "idempotent",
  stopConversation: "idempotent", // each task's boundary is idempotent; a repeat stops only what is still active
  stopPerson: "idempotent",
  listIncidents: "idempotent",
  getIncident: "idempotent",
  openIncident: "idempotent", // a second switch on the same target returns the one already on (alreadyOpen)
  requestIncidentLift: "once",
  confirmIncidentLift: "once",
  withdrawIncidentLift: "once",
  taskEvents: "idempotent",
  allEvents: "idempotent",
  // A claim whose answer was lost leaves an item leased to nobody who runs it: its lease expires and lease
  // recovery queues it again (it never passed a checkpoint). Retrying costs at most one lease period.
  claim: "idempotent",
  heartbeat: "idempotent",
  checkpoint: "idempotent", // a check, recorded each time; repeating it decides nothing new
  submitted: "idempotent", // a repeat with the same operation id is recognised by the ledger
  complete: "idempotent", // fenced by the lease token: a repeat after a landed completion is refused (stale_lease)
  listReviewItems: "idempotent",
  reportPartial: "idempotent", // overwrites the same field with the same value
  reportProgress: "idempotent", // the latest report wins; a repeat records the same value again
  markUncertain: "idempotent", // uncertain → uncertain is a no-op
  registerToolHost: "idempotent", // a renewal
  claimToolRequests: "idempotent", // a claim whose answer was lost expires unanswered; the engine asks again
  answerToolRequest: "idempotent", // a repeated answer is accepted once
  holdResource: "idempotent", // the ledger returns the resource already recorded
  intendResources: "idempotent", // one intent per kind: a repeat records nothing new
  settleResourceIntents: "idempotent", // only open intents move
  releaseResource: "idempotent",
  sendMessage: "once",
  editProposal: "once",
  confirmProposal: "once",
  decideReviewItem: "once",
  metrics: "idempotent",
  createToken: "once",
  createSession: "once",
  deleteSession: "idempotent",
  openapi: "idempotent",
};

class Timeout {
  constructor(readonly ms: number) {}
}

/** Network errors that prove the request never reached the server, so even a non-idempotent call may be re-sent. */
const NEVER_SENT = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);
function provablyNeverSent(error: unknown): boolean {
  const cause = (error as { cause?: { code?: unknown; errors?: { code?: unknown }[] } } | null)?.cause;
  if (!cause) return false;
  if (typeof cause.code === "string") return NEVER_SENT.has(cause.code);
  return Array.isArray(cause.errors) && cause.errors.length > 0 && cause.errors.every((e) => typeof e?.code === "string" && NEVER_SENT.has(e.code));
}

export function describeNetworkError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } } | null)?.cause;
  const base = error instanceof Error ? error.message : String(error);
  return cause?.code ? `${base} (${cause.code})` : cause?.message ? `${base} (${cause.message})` : base;
}

/** An environment variable where there is one (Node, Deno, Bun); undefined in a browser. */
function envVar(name: string): string | undefined {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  return env?.[name] || undefined;
}

/**
 * Where the API is, as whom, with which fetch, retry policy and per-attempt timeout; sends one contract call (its
 * retries by the route's Repeat) and parses its answer with the route's schema.
 */
export class Transport {
  readonly baseUrl: string;
  readonly #token: string;
  readonly fetch: typeof fetch;
  readonly retry: ResolvedRetry;
  readonly timeoutMs: number;

  constructor(options: StoplineClientOptions = {}) {
    const baseUrl = options.baseUrl ?? envVar("STOPLINE_URL") ?? "http://localhost:3000";
    const token = options.token ?? envVar("STOPLINE_TOKEN");
    if (!baseUrl) throw new TypeError("StoplineClient: baseUrl is empty");
    if (!token)
      throw new TypeError(
        "StoplineClient: no token — pass { token } or set STOPLINE_TOKEN (create one with `npm run token:create -- --role agent --name my-agent` in Stopline)",
      );
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.#token = token;
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.retry = resolveRetry(options.retry);
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  /** The Authorization header's value. */
  authorization(): string {
    return `Bearer ${this.#token}`;
  }

  async send(name: RouteName, args: SendArgs, repeat: Repeat): Promise<any> {
    const route: RouteContract = contract[name];
    const label = `${route.method} ${route.path}`;
    const url = this.url(route.path, args.params, args.query);
    const headers: Record<string, string> = { accept: "application/json", authorization: this.authorization() };
    let body: string | undefined;
    if (route.body) {
      body = JSON.stringify(args.body ?? {});
      headers["content-type"] = "application/json";
    }
    const policy = this.retry;

    for (let attempt = 1; ; attempt++) {
      const canRetry = attempt <= policy.retries;
      let answer: { status: number; headers: Headers; text: string };
      try {
        answer = await this.#attempt(url, { method: route.method, headers, body }, args.signal);
      } catch (error) {
        if (args.signal?.aborted) throw args.signal.reason;
        const timedOut = error instanceof Timeout;
        const failure = timedOut
          ? new NetworkError(`${label}: no answer within ${error.ms} ms`, { status: null, code: SdkErrorCode.timeout, route: label, attempts: attempt })
          : new NetworkError(`${label}: ${describeNetworkError(error)}`, {
              status: null,
              code: SdkErrorCode.networkError,
              route: label,
              attempts: attempt,
              cause: error,
            });
        if (canRetry && (repeat === "idempotent" || (!timedOut && provablyNeverSent(error)))) {
          await policy.sleep(backoffDelay(attempt - 1, policy), args.signal);
          continue;
        }
        throw failure;
      }

      if (answer.status >= 200 && answer.status < 300) {
        return parseAnswer(route, label, answer, attempt);
      }
      const failure = errorFromBody(answer.status, answer.text, label);
      failure.attempts = attempt;
      if (canRetry && repeat === "idempotent" && isRetryableStatus(answer.status)) {
        const retryAfterMs = parseRetryAfter(answer.headers.get("retry-after"));
        if (retryAfterMs === null || retryAfterMs <= policy.maxRetryAfterMs) {
          await policy.sleep(backoffDelay(attempt - 1, policy, retryAfterMs), args.signal);
          continue;
        }
      }
      throw failure;
    }
  }

  /** One HTTP attempt, its body read in full, within the per-attempt timeout. */
  async #attempt(url: string, init: { method: string; headers: Record<string, string>; body?: string }, signal?: AbortSignal) {
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal!.reason);
    if (signal?.aborted) throw signal.reason;
    signal?.addEventListener("abort", onAbort, { once: true });
    const timeout = new Timeout(this.timeoutMs);
    const timer = setTimeout(() => controller.abort(timeout), this.timeoutMs);
    try {
      const response = await this.fetch(url, { ...init, signal: controller.signal });
      const text = await response.text();
      return { status: response.status, headers: response.headers, text };
    } catch (error) {
      if (controller.signal.reason === timeout) throw timeout;
      throw error;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
  }

  url(path: string, params: Record<string, unknown> | undefined, query: Record<string, unknown> | undefined): string {
    const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = params?.[name];
      if (value === undefined || value === null || value === "") throw new TypeError(`${path}: the path parameter "${name}" is required`);
      return encodeURIComponent(String(value));
    });
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value === undefined || value === null) continue;
      search.set(key, Array.isArray(value) ? value.join(",") : String(value));
    }
    const qs = search.toString();
    return `${this.baseUrl}${filled}${qs ? `?${qs}` : ""}`;
  }
}

export interface SendArgs extends CallOptions {
  params?: Record<string, unknown>;
  query?: Record<string, unknown>;
  body?: unknown;
}

function parseAnswer(route: RouteContract, label: string, answer: { status: number; text: string }, attempts: number): unknown {
  const invalid = (why: string, details: Record<string, unknown> = {}) =>
    new InvalidResponseError(`${label} answered ${answer.status}, ${why}`, {
      status: answer.status,
      code: SdkErrorCode.invalidResponse,
      route: label,
      attempts,
      details,
    });
  if (!route.response) return answer.text ? safeJson(answer.text) : undefined;
  let json: unknown;
  try {
    json = JSON.parse(answer.text);
  } catch {
    throw invalid("with a body that is not JSON", { body: answer.text.slice(0, 500) });
  }
  const parsed = route.response.safeParse(json);
  if (!parsed.success) {
    throw invalid(
      `with a body that breaks the contract: ${parsed.error.issues
        .slice(0, 5)
        .map((i) => `${i.path.join(".") || "(body)"}: ${i.message}`)
        .join("; ")}`,
      {
        issues: parsed.error.issues.map((i) => ({ field: i.path.join(".") || "(body)", message: i.message })),
      },
    );
  }
  return parsed.data;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

import type { z } from "zod";
import { contract, type Contract, type RouteContract } from "../api/contract";
import * as s from "../api/schemas";
import { readEventStream } from "../events/read-sse";
import type { ReviewItemStatus, TaskStage } from "../ledger/states";
import { ConflictError, errorFromBody, InvalidResponseError, NetworkError, SdkErrorCode, StoplineError } from "./errors";
import { abortableSleep, backoffDelay, isRetryableStatus, parseRetryAfter, resolveRetry, type ResolvedRetry, type RetryOptions } from "./retry";

// ---- the API's types, inferred from the shared schemas (never re-declared) ---------------------------

export type Task = z.output<typeof s.TaskSchema>;
export type TaskList = z.output<typeof s.TaskListSchema>;
export type TaskDetail = z.output<typeof s.TaskDetailSchema>;
export type WorkItem = z.output<typeof s.WorkItemSchema>;
export type ClaimedWorkItem = z.output<typeof s.ClaimedWorkItemSchema>;
export type CancelResponse = z.output<typeof s.CancelResponseSchema>;
export type CancellationSummary = z.output<typeof s.CancellationSummarySchema>;
export type StopPreview = z.output<typeof s.StopPreviewSchema>;
export type Incident = z.output<typeof s.IncidentSchema>;
export type IncidentDetail = z.output<typeof s.IncidentDetailSchema>;
export type IncidentList = z.output<typeof s.IncidentListSchema>;
export type OpenIncidentInput = z.input<typeof s.OpenIncidentBody>;
export type OpenIncidentResponse = z.output<typeof s.OpenIncidentResponseSchema>;
export type ChildCancelResponse = z.output<typeof s.ChildCancelResponseSchema>;
export type ManyCancelResponse = z.output<typeof s.ManyCancelResponseSchema>;
/** One ledger event: narrowing on `type` types its `data` (a discriminated union over the event catalogue). */
export type LedgerEventRecord = s.LedgerEventRecord;
/** @deprecated The name of the event catalogue on the server; use LedgerEventRecord. */
export type LedgerEvent = LedgerEventRecord;
export type HeartbeatResponse = z.output<typeof s.HeartbeatResponseSchema>;
export type CheckpointResponse = z.output<typeof s.CheckpointResponseSchema>;
export type SubmissionResponse = z.output<typeof s.SubmissionResponseSchema>;
export type ReviewItem = z.output<typeof s.ReviewItemSchema>;
export type ReviewItemList = z.output<typeof s.ReviewItemListSchema>;
export type DecisionResponse = z.output<typeof s.DecisionResponseSchema>;
export type Metrics = z.output<typeof s.MetricsSchema>;

export type CreateTaskInput = z.input<typeof s.CreateTaskBody>;
export type CompleteTaskInput = z.input<typeof s.CompleteTaskBody>;
export type FailTaskInput = z.input<typeof s.FailTaskBody>;
export type FinishTaskResponse = z.output<typeof s.FinishTaskResponseSchema>;
export type ScheduleWorkItemInput = z.input<typeof s.ScheduleWorkItemBody>;
export type StartWorkItemInput = z.input<typeof s.StartWorkItemBody>;
export type CancelInput = z.input<typeof s.CancelBody>;
export type ClaimInput = z.input<typeof s.ClaimBody>;
export type HeartbeatInput = z.input<typeof s.HeartbeatBody>;
export type CheckpointInput = z.input<typeof s.CheckpointBody>;
export type SubmittedInput = z.input<typeof s.SubmittedBody>;
export type CompleteInput = z.input<typeof s.CompleteBody>;
export type DecisionInput = z.input<typeof s.DecisionBody>;
export type ListReviewItemsInput = { status?: ReviewItemStatus; taskId?: string };
export type MetricsInput = z.input<typeof s.MetricsQuery>;
export interface ListTasksInput {
  /** One stage or several (sent comma-separated). */
  status?: TaskStage | readonly TaskStage[];
  conversationId?: string;
  limit?: number;
  /** The nextCursor of the previous page. */
  before?: string;
}

// ---- generic, contract-driven calls ------------------------------------------------------------------

export type RouteName = keyof Contract;
/** Routes answered with JSON described by a response schema (not the event streams). */
export type JsonRouteName = { [K in RouteName]: Contract[K] extends { response: z.ZodType } ? K : never }[RouteName];
type InputOf<T> = T extends z.ZodType ? z.input<T> : never;
export type ParamsOf<K extends RouteName> = Contract[K] extends { params: infer P } ? InputOf<P> : undefined;
export type QueryOf<K extends RouteName> = Contract[K] extends { query: infer Q } ? InputOf<Q> : undefined;
export type BodyOf<K extends RouteName> = Contract[K] extends { body: infer B } ? InputOf<B> : undefined;
export type ResponseOf<K extends RouteName> = Contract[K] extends { response: infer R } ? (R extends z.ZodType ? z.output<R> : never) : unknown;

export interface CallOptions {
  /** Aborting rejects the call with the signal's reason (no retry). */
  signal?: AbortSignal;
}

export type CallArgs<K extends RouteName> = CallOptions &
  (Contract[K] extends { params: z.ZodType } ? { params: ParamsOf<K> } : { params?: undefined }) &
  (Contract[K] extends { body: z.ZodType } ? { body: BodyOf<K> } : { body?: undefined }) &
  (Contract[K] extends { query: z.ZodType } ? { query?: QueryOf<K> } : { query?: undefined });

/**
 * Whether a call may be sent again after an answer that leaves its fate unknown (network error, timeout,
 * 408/429/5xx):
 * - `idempotent`: repeating it cannot do anything twice (reads; Stop; the worker protocol, which is keyed by
 *   the lease token and the operation id; a schedule with a correlationId/idempotencyKey);
 * - `once`: it is sent again only when the request provably never reached the server (connection refused,
 *   unknown host) — a lost answer is not retried, because the first attempt may have taken effect.
 */
type Repeat = "idempotent" | "once";

/** Routes not listed here (e.g. one added to the contract later) are `once`: never re-sent unless provably unsent. */
const REPEAT: Partial<Record<RouteName, Repeat>> = {
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

export interface StoplineClientOptions {
  /** Where the app is served, e.g. http://localhost:3000 (a path prefix is kept). Default: `STOPLINE_URL`, else http://localhost:3000. */
  baseUrl?: string;
  /**
   * An API token (npm run token:create): an agent token for tasks and Stop, a worker token for the worker protocol.
   * Default: `STOPLINE_TOKEN` from the environment (Node, Deno, Bun); without either the constructor throws.
   */
  token?: string;
  /** Default: the global fetch. */
  fetch?: typeof fetch;
  /** Backoff for retried calls; `false` disables retrying. */
  retry?: RetryOptions | false;
  /** Per attempt: no complete answer within this time counts as a timeout (default 30 s). Not for event streams. */
  timeoutMs?: number;
}

export interface EventsOptions {
  /** Only this task's events (the whole history first); otherwise all tasks' events from now on. */
  taskId?: string;
  /** Resume after this ledger sequence number (an event's `seq`). */
  lastEventId?: number;
  /** Ends the iteration (the iterator returns; it does not throw). */
  signal?: AbortSignal;
  /** Consecutive failed reconnection attempts before the iterator throws the last error (default 20). */
  maxReconnects?: number;
  /** No byte (not even the server's heartbeat comment, every 15 s) for this long → reconnect (default 45 s). */
  idleTimeoutMs?: number;
}

class Timeout {
  constructor(readonly ms: number) {}
}
class Idle {}

/** Network errors that prove the request never reached the server, so even a non-idempotent call may be re-sent. */
const NEVER_SENT = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);
function provablyNeverSent(error: unknown): boolean {
  const cause = (error as { cause?: { code?: unknown; errors?: { code?: unknown }[] } } | null)?.cause;
  if (!cause) return false;
  if (typeof cause.code === "string") return NEVER_SENT.has(cause.code);
  return Array.isArray(cause.errors) && cause.errors.length > 0 && cause.errors.every((e) => typeof e?.code === "string" && NEVER_SENT.has(e.code));
}

function describeNetworkError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } } | null)?.cause;
  const base = error instanceof Error ? error.message : String(error);
  return cause?.code ? `${base} (${cause.code})` : cause?.message ? `${base} (${cause.message})` : base;
}

/**
 * The HTTP client of the Stopline API for agent runtimes and worker processes outside the app. Every call
 * is built from the route's contract entry (lib/api/contract.ts: method, path, schemas), every answer is
 * parsed with the shared zod schemas, and every failure is a typed StoplineError (errors.ts).
 *
 * Idempotent calls are retried on network errors, timeouts and 408/429/5xx with exponential backoff and
 * jitter, honouring Retry-After; non-idempotent ones (createTask; scheduleWorkItem without a correlationId or
 * idempotencyKey) are never re-sent once they may have reached the server.
 */
/** An environment variable where there is one (Node, Deno, Bun); undefined in a browser. */
function envVar(name: string): string | undefined {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  return env?.[name] || undefined;
}

export class StoplineClient {
  readonly baseUrl: string;
  readonly #token: string;
  readonly #fetch: typeof fetch;
  readonly #retry: ResolvedRetry;
  readonly #timeoutMs: number;

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
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.#retry = resolveRetry(options.retry);
    this.#timeoutMs = options.timeoutMs ?? 30_000;
  }

  // ---- tasks (agent) ---------------------------------------------------------------------------------

  /** Creates a task. Never re-sent after it may have reached the server (the API has no idempotency key for tasks). */
  createTask(body: CreateTaskInput, options?: CallOptions): Promise<Task> {
    return this.call("createTask", { body, ...options });
  }

  listTasks(query: ListTasksInput = {}, options?: CallOptions): Promise<TaskList> {
    const { status, ...rest } = query;
    const joined = status === undefined ? undefined : typeof status === "string" ? status : status.join(",");
    return this.call("listTasks", { query: { ...rest, ...(joined ? { status: joined } : {}) }, ...options });
  }

  /** A task with its work items, resources, side effects and review items. */
  getTask(taskId: string, options?: CallOptions): Promise<TaskDetail> {
    return this.call("getTask", { params: { taskId }, ...options });
  }

  /**
   * Schedules a work item under a task (`intentVersion`: the task's intent version it was prepared under).
   * Throws CancelledError once the task's Stop was recorded, StaleIntentError when the intent moved.
   *
   * With a `correlationId` or `idempotencyKey` the call is idempotent: it is retried like a read, and a repeat
   * that finds the item already scheduled (by an earlier attempt whose answer was lost, or an earlier run of
   * the agent) returns that item — if it is the same request (tool, kind, mechanism); otherwise ConflictError.
   */
  async scheduleWorkItem(taskId: string, body: ScheduleWorkItemInput, options?: CallOptions): Promise<WorkItem> {
    const keyed = !!(body.correlationId || body.idempotencyKey);
    try {
      return await this.#send("scheduleWorkItem", { params: { taskId }, body, ...options }, keyed ? "idempotent" : "once");
    } catch (error) {
      const existingId = error instanceof ConflictError ? error.details.workItemId : undefined;
      if (!keyed || typeof existingId !== "string") throw error;
      const existing = (await this.getTask(taskId, options)).workItems.find((w) => w.id === existingId);
      const same =
        existing &&
        existing.toolName === body.toolName.trim() &&
        existing.kind === body.kind &&
        existing.mechanism === body.mechanism &&
        (!body.correlationId || existing.correlationId === body.correlationId.trim()) &&
        (!body.idempotencyKey || existing.idempotencyKey === body.idempotencyKey.trim());
      if (same) return existing;
      throw error;
    }
  }

  /**
   * Schedules a work item AND leases it to this caller in one step (worker tokens), for work the caller runs
   * itself — an AI SDK tool call inside the agent's loop. Report it through the lease protocol (heartbeat,
   * checkpoint, submitted, complete) with the returned `leaseToken`. CancelledError once the task's Stop was
   * recorded. Never re-sent after it may have reached the server.
   */
  startWorkItem(taskId: string, body: StartWorkItemInput, options?: CallOptions): Promise<ClaimedWorkItem> {
    return this.call("startWorkItem", { params: { taskId }, body, ...options });
  }

  /**
   * Stop: records the task's cancellation boundary (intent version +1) and answers at once; the server's
   * cancellation engine then stops the children. Idempotent — a repeat returns the first boundary
   * (`alreadyRequested: true`), or `kind: "already_finished"` for a task that had already ended.
   */
  cancel(taskId: string, body: CancelInput = {}, options?: CallOptions): Promise<CancelResponse> {
    return this.call("cancelTask", { params: { taskId }, body, ...options });
  }

  /**
   * The agent finished the task: every child has ended (ConflictError otherwise). From then on it shows as
   * completed, and Stop on it answers `already_finished` — nothing is running. Idempotent (`alreadyFinished`).
   */
  completeTask(taskId: string, body: CompleteTaskInput = {}, options?: CallOptions): Promise<FinishTaskResponse> {
    return this.call("completeTask", { params: { taskId }, body, ...options });
  }

  /** The agent gave up on the task, with the reason (every child must have ended). Idempotent. */
  failTask(taskId: string, body: FailTaskInput, options?: CallOptions): Promise<FinishTaskResponse> {
    return this.call("failTask", { params: { taskId }, body, ...options });
  }

  /**
   * The cancellation summary, from recorded facts only: status IN_PROGRESS until the engine settled the Stop
   * (`settled_at`), each child's outcome in `tool_calls`. NotFoundError when no Stop was requested for the task.
   */
  getCancellation(taskId: string, options?: CallOptions): Promise<CancellationSummary> {
    return this.call("getCancellation", { params: { taskId }, ...options });
  }

  /**
   * The cancellation summary once it is final: polls `getCancellation` until the Stop is settled (`settled_at` set,
   * status no longer IN_PROGRESS) — the engine's considered answer, which later facts are appended to but never
   * overturn. Throws a `StoplineError` with code `timeout` after `timeoutMs` (default 60 s).
   */
  async waitForCancellation(taskId: string, options: { timeoutMs?: number; intervalMs?: number; signal?: AbortSignal } = {}): Promise<CancellationSummary> {
    const deadline = Date.now() + (options.timeoutMs ?? 60_000);
    for (;;) {
      const summary = await this.getCancellation(taskId, { signal: options.signal });
      if (summary.status !== "IN_PROGRESS" && summary.settled_at) return summary;
      if (Date.now() >= deadline) {
        throw new NetworkError(`the Stop of task ${taskId} did not settle within ${options.timeoutMs ?? 60_000} ms (still ${summary.status})`, {
          status: null,
          code: "timeout",
          details: { taskId },
        });
      }
      await abortableSleep(options.intervalMs ?? 200, options.signal);
    }
  }

  /**
   * What Stop would do if pressed now — per child, the plan's action and the outcome it heads for, with the words
   * a person reads; writes nothing. The plan Stop then records is the same (the engine and the preview share it),
   * unless the ledger changes in between, or a configured model planner chooses another allowed action
   * (`model_may_advise`).
   */
  stopPreview(taskId: string, options?: CallOptions): Promise<StopPreview> {
    return this.call("stopPreview", { params: { taskId }, ...options });
  }

  /**
   * Stop one step (a work item) and everything under it, while the rest of the task goes on: its boundary is
   * recorded first (its queued descendants never start; its commitment's checkpoint is refused), then each running
   * one is stopped through its mechanism. Idempotent: a repeat returns the first boundary.
   */
  stopWorkItem(workItemId: string, body: CancelInput = {}, options?: CallOptions): Promise<ChildCancelResponse> {
    return this.call("stopWorkItem", { params: { id: workItemId }, body, ...options });
  }

  /** The summary of a Stop of one step (scope `work_item`): IN_PROGRESS until its pass settled. */
  getWorkItemCancellation(workItemId: string, options?: CallOptions): Promise<CancellationSummary> {
    return this.call("getWorkItemCancellation", { params: { id: workItemId }, ...options });
  }

  /** Stop everything of a conversation: each task still active gets its boundary (scope `conversation`). */
  stopConversation(conversationId: string, body: CancelInput = {}, options?: CallOptions): Promise<ManyCancelResponse> {
    return this.call("stopConversation", { params: { conversationId }, body, ...options });
  }

  /** Stop everything of a person (their owner id; a user token only their own): scope `person`. */
  stopPerson(ownerId: string, body: CancelInput = {}, options?: CallOptions): Promise<ManyCancelResponse> {
    return this.call("stopPerson", { params: { ownerId }, body, ...options });
  }

  // ---- incidents: the kill switch (operators) ------------------------------------------------------------

  /**
   * Quarantine a tool (`targetKind: "tool"`, its name) or an agent token (`"token"`, its id): from the commit nothing
   * of it is scheduled or claimed anywhere (QuarantinedError-like 409 `quarantined` with the reason), and everything
   * of it in flight is stopped like a Stop. A second switch on the same target returns the first (`alreadyOpen`).
   */
  openIncident(body: OpenIncidentInput, options?: CallOptions): Promise<OpenIncidentResponse> {
    return this.call("openIncident", { body, ...options });
  }

  async incidents(options?: CallOptions): Promise<IncidentList["incidents"]> {
    return (await this.call("listIncidents", { ...options })).incidents;
  }

  /** One incident: the tasks it touched, each stopped step's outcome, what needs a person. */
  getIncident(incidentId: string, options?: CallOptions): Promise<IncidentDetail> {
    return this.call("getIncident", { params: { id: incidentId }, ...options });
  }

  /** Ask to lift a kill switch; another person must confirm (maker-checker). */
  requestIncidentLift(incidentId: string, reason: string, options?: CallOptions): Promise<Incident> {
    return this.call("requestIncidentLift", { params: { id: incidentId }, body: { reason }, ...options });
  }

  confirmIncidentLift(incidentId: string, options?: CallOptions): Promise<Incident> {
    return this.call("confirmIncidentLift", { params: { id: incidentId }, body: {}, ...options });
  }

  withdrawIncidentLift(incidentId: string, options?: CallOptions): Promise<Incident> {
    return this.call("withdrawIncidentLift", { params: { id: incidentId }, body: {}, ...options });
  }

  listReviewItems(query: ListReviewItemsInput = {}, options?: CallOptions): Promise<ReviewItemList> {
    return this.call("listReviewItems", { query, ...options });
  }

  metrics(query: MetricsInput = {}, options?: CallOptions): Promise<Metrics> {
    return this.call("metrics", { query, ...options });
  }

  // ---- the worker protocol (worker tokens) -----------------------------------------------------------

  /** Claims the oldest queued work item that may start (of `toolNames`), with a lease; null when there is none. */
  async claim(body: ClaimInput, options?: CallOptions): Promise<ClaimedWorkItem | null> {
    return (await this.call("claim", { body, ...options })).workItem;
  }

  /** Extends the lease; `cancelRequested: true` means stop now. StaleLeaseError once the lease is no longer yours. */
  heartbeat(workItemId: string, body: HeartbeatInput, options?: CallOptions): Promise<HeartbeatResponse> {
    return this.call("heartbeat", { params: { id: workItemId }, body, ...options });
  }

  /**
   * The versioned check right before a commitment: CancelledError after the Stop, StaleIntentError when the
   * intent or the confirmed proposal moved. A passed checkpoint does not mean a later Stop can un-send the action.
   */
  checkpoint(workItemId: string, body: CheckpointInput, options?: CallOptions): Promise<CheckpointResponse> {
    return this.call("checkpoint", { params: { id: workItemId }, body, ...options });
  }

  /** Records the operation id of an external action the service accepted — before waiting for its result. */
  submitted(workItemId: string, body: SubmittedInput, options?: CallOptions): Promise<SubmissionResponse> {
    return this.call("submitted", { params: { id: workItemId }, body, ...options });
  }

  /**
   * Reports how the work item ended. Retried like the other worker calls; if an earlier attempt landed and
   * only its answer was lost, the retry is refused with StaleLeaseError whose `details.currentState` is the
   * outcome you reported (`attempts` > 1) — runWorker treats that as success.
   */
  complete(workItemId: string, body: CompleteInput, options?: CallOptions): Promise<WorkItem> {
    return this.call("complete", { params: { id: workItemId }, body, ...options });
  }

  // ---- server-sent events ----------------------------------------------------------------------------

  /**
   * The ledger's events as an async iterator, in order, each exactly once. A dropped connection is resumed
   * with Last-Event-ID = the last event received (the server replays what was missed), after a backoff; the
   * iterator ends when `signal` aborts or the caller breaks out of the loop.
   *
   * Limitation: on the all-tasks stream without `lastEventId`, the server starts at "now"; a connection that
   * drops before the first event arrived resumes at the new "now" (pass `lastEventId: 0`, or a known `seq`,
   * for an exact history). A task stream always starts at the task's first event.
   */
  async *events(options: EventsOptions = {}): AsyncGenerator<LedgerEventRecord, void, undefined> {
    const route: RouteContract = options.taskId ? contract.taskEvents : contract.allEvents;
    const label = `${route.method} ${route.path}`;
    const url = this.#url(route.path, options.taskId ? { taskId: options.taskId } : undefined, undefined);
    const maxReconnects = options.maxReconnects ?? 20;
    const idleTimeoutMs = options.idleTimeoutMs ?? 45_000;
    const signal = options.signal;
    let cursor = options.lastEventId;
    // Ledger order is not always seq order (on PostgreSQL it follows the writing transactions): the resume point
    // is the last event received, and a repeat is recognised by its id, never by comparing sequence numbers.
    const seen = new Set<number>();
    let failures = 0;

    while (!signal?.aborted) {
      const connection = new AbortController();
      const onAbort = () => connection.abort(signal!.reason);
      signal?.addEventListener("abort", onAbort, { once: true });
      let idleTimer: ReturnType<typeof setInterval> | undefined;
      let failure: StoplineError | null = null;
      let retryAfterMs: number | null = null;
      try {
        let response: Response;
        try {
          response = await this.#fetch(url, {
            method: "GET",
            headers: {
              accept: "text/event-stream",
              authorization: `Bearer ${this.#token}`,
              ...(cursor !== undefined ? { "last-event-id": String(cursor) } : {}),
            },
            signal: connection.signal,
          });
        } catch (error) {
          if (signal?.aborted) return;
          throw new NetworkError(`${label}: ${describeNetworkError(error)}`, { status: null, code: SdkErrorCode.networkError, route: label, cause: error });
        }
        if (!response.ok) {
          const error = errorFromBody(response.status, await response.text().catch(() => ""), label);
          if (!isRetryableStatus(response.status)) throw error; // 401, 403, 404 …: reconnecting will not help
          retryAfterMs = parseRetryAfter(response.headers.get("retry-after"));
          throw error;
        }
        const type = response.headers.get("content-type") ?? "";
        if (!/^text\/event-stream\b/i.test(type) || !response.body) {
          throw new InvalidResponseError(`${label} answered ${response.status} with "${type || "no content type"}", not an event stream`, {
            status: response.status,
            code: SdkErrorCode.invalidResponse,
            route: label,
          });
        }
        // Half-open connections: any byte (the server's heartbeat comments included) proves the stream alive.
        let lastByteAt = Date.now();
        const watched = response.body.pipeThrough(
          new TransformStream<Uint8Array, Uint8Array>({
            transform(chunk, controller) {
              lastByteAt = Date.now();
              controller.enqueue(chunk);
            },
          }),
        );
        idleTimer = setInterval(
          () => {
            if (Date.now() - lastByteAt > idleTimeoutMs) connection.abort(new Idle());
          },
          Math.min(idleTimeoutMs, 5_000),
        );
        for await (const message of readEventStream(watched)) {
          if (message.event === "error") break; // the server could not read the ledger: reconnect and resume
          if (message.event !== "ledger") continue;
          const event = parseEvent(message.data, label, response.status);
          if (seen.has(event.seq)) continue; // never twice, whatever the server resends
          seen.add(event.seq);
          if (seen.size > 10_000) seen.delete(seen.values().next().value!);
          cursor = event.seq;
          failures = 0;
          yield event;
        }
        // The stream ended (server restart, proxy timeout, the server's error event): reconnect and resume.
      } catch (error) {
        if (signal?.aborted) return;
        if (error instanceof InvalidResponseError) throw error;
        if (error instanceof StoplineError && error.status !== null && !isRetryableStatus(error.status)) throw error;
        failure =
          error instanceof StoplineError
            ? error
            : new NetworkError(
                `${label}: the event stream broke (${connection.signal.reason instanceof Idle ? `no data for ${idleTimeoutMs} ms` : describeNetworkError(error)})`,
                {
                  status: null,
                  code: SdkErrorCode.networkError,
                  route: label,
                  cause: error,
                },
              );
      } finally {
        clearInterval(idleTimer);
        signal?.removeEventListener("abort", onAbort);
        connection.abort(); // releases the connection when the caller stops iterating
      }
      if (signal?.aborted) return;
      failures++;
      if (failure && failures > maxReconnects) {
        failure.attempts = failures;
        throw failure;
      }
      if (retryAfterMs !== null && retryAfterMs > this.#retry.maxRetryAfterMs) throw failure!;
      try {
        await this.#retry.sleep(backoffDelay(Math.max(0, failures - 1), this.#retry, retryAfterMs), signal);
      } catch {
        return; // aborted while waiting
      }
    }
  }

  // ---- generic -----------------------------------------------------------------------------------------

  /**
   * Calls any JSON route of the contract by name: the path is filled from `params`, `query` and `body` are
   * sent as the contract says, the answer is parsed with the route's response schema. The typed methods
   * above are thin wrappers of this.
   */
  call<K extends JsonRouteName>(name: K, args: CallArgs<K>): Promise<ResponseOf<K>> {
    return this.#send(name, args as SendArgs, REPEAT[name] ?? "once") as Promise<ResponseOf<K>>;
  }

  async #send(name: RouteName, args: SendArgs, repeat: Repeat): Promise<any> {
    const route: RouteContract = contract[name];
    const label = `${route.method} ${route.path}`;
    const url = this.#url(route.path, args.params, args.query);
    const headers: Record<string, string> = { accept: "application/json", authorization: `Bearer ${this.#token}` };
    let body: string | undefined;
    if (route.body) {
      body = JSON.stringify(args.body ?? {});
      headers["content-type"] = "application/json";
    }
    const policy = this.#retry;

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
    const timeout = new Timeout(this.#timeoutMs);
    const timer = setTimeout(() => controller.abort(timeout), this.#timeoutMs);
    try {
      const response = await this.#fetch(url, { ...init, signal: controller.signal });
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

  #url(path: string, params: Record<string, unknown> | undefined, query: Record<string, unknown> | undefined): string {
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

interface SendArgs extends CallOptions {
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

function parseEvent(data: string, label: string, status: number): LedgerEventRecord {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    throw new InvalidResponseError(`${label}: an event's data is not JSON`, {
      status,
      code: SdkErrorCode.invalidResponse,
      route: label,
      details: { data: data.slice(0, 500) },
    });
  }
  const parsed = s.LedgerEventRecordSchema.safeParse(json);
  if (!parsed.success) {
    throw new InvalidResponseError(
      `${label}: an event breaks the contract: ${parsed.error.issues
        .slice(0, 5)
        .map((i) => `${i.path.join(".")}: ${i.message}`)
        .join("; ")}`,
      {
        status,
        code: SdkErrorCode.invalidResponse,
        route: label,
        details: { issues: parsed.error.issues.map((i) => ({ field: i.path.join("."), message: i.message })) },
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

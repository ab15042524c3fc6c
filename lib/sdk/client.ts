import type {
  CallArgs,
  CallOptions,
  CancelInput,
  CancelResponse,
  CancellationSummary,
  ChildCancelResponse,
  CheckpointInput,
  CheckpointResponse,
  ClaimInput,
  ClaimedWorkItem,
  CompleteInput,
  CompleteTaskInput,
  CreateTaskInput,
  EventsOptions,
  FailTaskInput,
  FinishTaskResponse,
  HeartbeatInput,
  HeartbeatResponse,
  Incident,
  IncidentDetail,
  IncidentList,
  JsonRouteName,
  LedgerEventRecord,
  ListReviewItemsInput,
  ListTasksInput,
  ManyCancelResponse,
  Metrics,
  MetricsInput,
  OpenIncidentInput,
  OpenIncidentResponse,
  ResponseOf,
  ReviewItemList,
  ScheduleWorkItemInput,
  StartWorkItemInput,
  StopPreview,
  StoplineClientOptions,
  SubmissionResponse,
  SubmittedInput,
  Task,
  TaskDetail,
  TaskList,
  WorkItem,
} from "./client-types";
import { ConflictError, NetworkError } from "./errors";
import { ledgerEvents } from "./event-stream";
import { abortableSleep } from "./retry";
import { REPEAT, type SendArgs, Transport } from "./transport";

// The API's types live in client-types.ts (inferred from the shared schemas); they are this module's too.
export type * from "./client-types";

/**
 * The HTTP client of the Stopline API for agent runtimes and worker processes outside the app. Every call
 * is built from the route's contract entry (lib/api/contract.ts: method, path, schemas), every answer is
 * parsed with the shared zod schemas, and every failure is a typed StoplineError (errors.ts).
 *
 * Idempotent calls are retried on network errors, timeouts and 408/429/5xx with exponential backoff and
 * jitter, honouring Retry-After; non-idempotent ones (createTask; scheduleWorkItem without a correlationId or
 * idempotencyKey) are never re-sent once they may have reached the server.
 */
export class StoplineClient {
  readonly baseUrl: string;
  readonly #transport: Transport;

  constructor(options: StoplineClientOptions = {}) {
    this.#transport = new Transport(options);
    this.baseUrl = this.#transport.baseUrl;
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
      return await this.#transport.send("scheduleWorkItem", { params: { taskId }, body, ...options }, keyed ? "idempotent" : "once");
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
   * The ledger's events as an async iterator, in order, each exactly once; a dropped connection is resumed with
   * Last-Event-ID (event-stream.ts says how, and its one limitation).
   */
  events(options: EventsOptions = {}): AsyncGenerator<LedgerEventRecord, void, undefined> {
    return ledgerEvents(this.#transport, options);
  }

  // ---- generic -----------------------------------------------------------------------------------------

  /**
   * Calls any JSON route of the contract by name: the path is filled from `params`, `query` and `body` are
   * sent as the contract says, the answer is parsed with the route's response schema. The typed methods
   * above are thin wrappers of this.
   */
  call<K extends JsonRouteName>(name: K, args: CallArgs<K>): Promise<ResponseOf<K>> {
    return this.#transport.send(name, args as SendArgs, REPEAT[name] ?? "once") as Promise<ResponseOf<K>>;
  }
}

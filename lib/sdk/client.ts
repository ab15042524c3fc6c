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
import { callRoute } from "./clients/call";
import { IncidentClient } from "./clients/incidents";
import { ReviewClient } from "./clients/reviews";
import { TaskClient } from "./clients/tasks";
import { WorkItemClient } from "./clients/work-items";
import { ledgerEvents } from "./event-stream";
import { Transport } from "./transport";

// The API's types live in client-types.ts (inferred from the shared schemas); they are this module's too.
export type * from "./client-types";
export type { IncidentClient, ReviewClient, TaskClient, WorkItemClient };

/**
 * The HTTP client of the Stopline API for agent runtimes and worker processes outside the app: a facade over one
 * sub-client per resource — `task`, `workItem`, `review`, `incident` (clients/) — on one shared connection
 * (transport.ts). Every call is built from the route's contract entry (lib/api/contract.ts: method, path, schemas),
 * every answer is parsed with the shared zod schemas, and every failure is a typed StoplineError (errors.ts).
 *
 * Idempotent calls are retried on network errors, timeouts and 408/429/5xx with exponential backoff and
 * jitter, honouring Retry-After; non-idempotent ones (task.create; workItem.schedule without a correlationId or
 * idempotencyKey) are never re-sent once they may have reached the server.
 *
 * The flat methods (`createTask`, `claim`, …) are the same calls by their earlier names; each says which it is.
 */
export class StoplineClient {
  readonly baseUrl: string;
  /** Tasks and their Stop (agent runtimes). */
  readonly task: TaskClient;
  /** A task's steps: scheduling, the lease protocol (workers), a Stop of one step. */
  readonly workItem: WorkItemClient;
  /** The review queue. */
  readonly review: ReviewClient;
  /** The kill switch (operators). */
  readonly incident: IncidentClient;
  readonly #transport: Transport;

  constructor(options: StoplineClientOptions = {}) {
    this.#transport = new Transport(options);
    this.baseUrl = this.#transport.baseUrl;
    this.task = new TaskClient(this.#transport);
    this.workItem = new WorkItemClient(this.#transport, this.task);
    this.review = new ReviewClient(this.#transport);
    this.incident = new IncidentClient(this.#transport);
  }

  /** The ledger's events as an async iterator, in order, each exactly once; a dropped connection is resumed with
   * Last-Event-ID (event-stream.ts says how, and its one limitation). */
  events(options: EventsOptions = {}): AsyncGenerator<LedgerEventRecord, void, undefined> {
    return ledgerEvents(this.#transport, options);
  }

  metrics(query: MetricsInput = {}, options?: CallOptions): Promise<Metrics> {
    return this.call("metrics", { query, ...options });
  }

  /**
   * Calls any JSON route of the contract by name: the path is filled from `params`, `query` and `body` are
   * sent as the contract says, the answer is parsed with the route's response schema. The typed methods
   * are thin wrappers of this.
   */
  call<K extends JsonRouteName>(name: K, args: CallArgs<K>): Promise<ResponseOf<K>> {
    return callRoute(this.#transport, name, args);
  }

  // ---- the same calls by their flat names ----------------------------------------------------------------

  /** `task.create` */
  createTask(body: CreateTaskInput, options?: CallOptions): Promise<Task> {
    return this.task.create(body, options);
  }
  /** `task.list` */
  listTasks(query: ListTasksInput = {}, options?: CallOptions): Promise<TaskList> {
    return this.task.list(query, options);
  }
  /** `task.get` */
  getTask(taskId: string, options?: CallOptions): Promise<TaskDetail> {
    return this.task.get(taskId, options);
  }
  /** `task.cancel` — Stop. */
  cancel(taskId: string, body: CancelInput = {}, options?: CallOptions): Promise<CancelResponse> {
    return this.task.cancel(taskId, body, options);
  }
  /** `task.complete` */
  completeTask(taskId: string, body: CompleteTaskInput = {}, options?: CallOptions): Promise<FinishTaskResponse> {
    return this.task.complete(taskId, body, options);
  }
  /** `task.fail` */
  failTask(taskId: string, body: FailTaskInput, options?: CallOptions): Promise<FinishTaskResponse> {
    return this.task.fail(taskId, body, options);
  }
  /** `task.cancellation` — the cancellation summary. */
  getCancellation(taskId: string, options?: CallOptions): Promise<CancellationSummary> {
    return this.task.cancellation(taskId, options);
  }
  /** `task.waitForCancellation` */
  waitForCancellation(taskId: string, options: { timeoutMs?: number; intervalMs?: number; signal?: AbortSignal } = {}): Promise<CancellationSummary> {
    return this.task.waitForCancellation(taskId, options);
  }
  /** `task.stopPreview` */
  stopPreview(taskId: string, options?: CallOptions): Promise<StopPreview> {
    return this.task.stopPreview(taskId, options);
  }
  /** `task.stopConversation` */
  stopConversation(conversationId: string, body: CancelInput = {}, options?: CallOptions): Promise<ManyCancelResponse> {
    return this.task.stopConversation(conversationId, body, options);
  }
  /** `task.stopPerson` */
  stopPerson(ownerId: string, body: CancelInput = {}, options?: CallOptions): Promise<ManyCancelResponse> {
    return this.task.stopPerson(ownerId, body, options);
  }
  /** `workItem.schedule` */
  scheduleWorkItem(taskId: string, body: ScheduleWorkItemInput, options?: CallOptions): Promise<WorkItem> {
    return this.workItem.schedule(taskId, body, options);
  }
  /** `workItem.start` */
  startWorkItem(taskId: string, body: StartWorkItemInput, options?: CallOptions): Promise<ClaimedWorkItem> {
    return this.workItem.start(taskId, body, options);
  }
  /** `workItem.stop` */
  stopWorkItem(workItemId: string, body: CancelInput = {}, options?: CallOptions): Promise<ChildCancelResponse> {
    return this.workItem.stop(workItemId, body, options);
  }
  /** `workItem.cancellation` */
  getWorkItemCancellation(workItemId: string, options?: CallOptions): Promise<CancellationSummary> {
    return this.workItem.cancellation(workItemId, options);
  }
  /** `workItem.claim` */
  claim(body: ClaimInput, options?: CallOptions): Promise<ClaimedWorkItem | null> {
    return this.workItem.claim(body, options);
  }
  /** `workItem.heartbeat` */
  heartbeat(workItemId: string, body: HeartbeatInput, options?: CallOptions): Promise<HeartbeatResponse> {
    return this.workItem.heartbeat(workItemId, body, options);
  }
  /** `workItem.checkpoint` */
  checkpoint(workItemId: string, body: CheckpointInput, options?: CallOptions): Promise<CheckpointResponse> {
    return this.workItem.checkpoint(workItemId, body, options);
  }
  /** `workItem.submitted` */
  submitted(workItemId: string, body: SubmittedInput, options?: CallOptions): Promise<SubmissionResponse> {
    return this.workItem.submitted(workItemId, body, options);
  }
  /** `workItem.complete` */
  complete(workItemId: string, body: CompleteInput, options?: CallOptions): Promise<WorkItem> {
    return this.workItem.complete(workItemId, body, options);
  }
  /** `review.list` */
  listReviewItems(query: ListReviewItemsInput = {}, options?: CallOptions): Promise<ReviewItemList> {
    return this.review.list(query, options);
  }
  /** `incident.open` */
  openIncident(body: OpenIncidentInput, options?: CallOptions): Promise<OpenIncidentResponse> {
    return this.incident.open(body, options);
  }
  /** `incident.list` */
  incidents(options?: CallOptions): Promise<IncidentList["incidents"]> {
    return this.incident.list(options);
  }
  /** `incident.get` */
  getIncident(incidentId: string, options?: CallOptions): Promise<IncidentDetail> {
    return this.incident.get(incidentId, options);
  }
  /** `incident.requestLift` */
  requestIncidentLift(incidentId: string, reason: string, options?: CallOptions): Promise<Incident> {
    return this.incident.requestLift(incidentId, reason, options);
  }
  /** `incident.confirmLift` */
  confirmIncidentLift(incidentId: string, options?: CallOptions): Promise<Incident> {
    return this.incident.confirmLift(incidentId, options);
  }
  /** `incident.withdrawLift` */
  withdrawIncidentLift(incidentId: string, options?: CallOptions): Promise<Incident> {
    return this.incident.withdrawLift(incidentId, options);
  }
}

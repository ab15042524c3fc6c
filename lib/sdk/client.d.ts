import type { z } from "zod";
import { type Contract } from "../api/contract";
import * as s from "../api/schemas";
import type { ReviewItemStatus, TaskStage } from "../ledger/states";
import { type RetryOptions } from "./retry";
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
export type LedgerEvent = z.output<typeof s.LedgerEventSchema>;
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
export type ListReviewItemsInput = {
    status?: ReviewItemStatus;
    taskId?: string;
};
export type MetricsInput = z.input<typeof s.MetricsQuery>;
export interface ListTasksInput {
    /** One stage or several (sent comma-separated). */
    status?: TaskStage | readonly TaskStage[];
    conversationId?: string;
    limit?: number;
    /** The nextCursor of the previous page. */
    before?: string;
}
export type RouteName = keyof Contract;
/** Routes answered with JSON described by a response schema (not the event streams). */
export type JsonRouteName = {
    [K in RouteName]: Contract[K] extends {
        response: z.ZodType;
    } ? K : never;
}[RouteName];
type InputOf<T> = T extends z.ZodType ? z.input<T> : never;
export type ParamsOf<K extends RouteName> = Contract[K] extends {
    params: infer P;
} ? InputOf<P> : undefined;
export type QueryOf<K extends RouteName> = Contract[K] extends {
    query: infer Q;
} ? InputOf<Q> : undefined;
export type BodyOf<K extends RouteName> = Contract[K] extends {
    body: infer B;
} ? InputOf<B> : undefined;
export type ResponseOf<K extends RouteName> = Contract[K] extends {
    response: infer R;
} ? (R extends z.ZodType ? z.output<R> : never) : unknown;
export interface CallOptions {
    /** Aborting rejects the call with the signal's reason (no retry). */
    signal?: AbortSignal;
}
export type CallArgs<K extends RouteName> = CallOptions & (Contract[K] extends {
    params: z.ZodType;
} ? {
    params: ParamsOf<K>;
} : {
    params?: undefined;
}) & (Contract[K] extends {
    body: z.ZodType;
} ? {
    body: BodyOf<K>;
} : {
    body?: undefined;
}) & (Contract[K] extends {
    query: z.ZodType;
} ? {
    query?: QueryOf<K>;
} : {
    query?: undefined;
});
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
export declare class StoplineClient {
    #private;
    readonly baseUrl: string;
    constructor(options?: StoplineClientOptions);
    /** Creates a task. Never re-sent after it may have reached the server (the API has no idempotency key for tasks). */
    createTask(body: CreateTaskInput, options?: CallOptions): Promise<Task>;
    listTasks(query?: ListTasksInput, options?: CallOptions): Promise<TaskList>;
    /** A task with its work items, resources, side effects and review items. */
    getTask(taskId: string, options?: CallOptions): Promise<TaskDetail>;
    /**
     * Schedules a work item under a task (`intentVersion`: the task's intent version it was prepared under).
     * Throws CancelledError once the task's Stop was recorded, StaleIntentError when the intent moved.
     *
     * With a `correlationId` or `idempotencyKey` the call is idempotent: it is retried like a read, and a repeat
     * that finds the item already scheduled (by an earlier attempt whose answer was lost, or an earlier run of
     * the agent) returns that item — if it is the same request (tool, kind, mechanism); otherwise ConflictError.
     */
    scheduleWorkItem(taskId: string, body: ScheduleWorkItemInput, options?: CallOptions): Promise<WorkItem>;
    /**
     * Schedules a work item AND leases it to this caller in one step (worker tokens), for work the caller runs
     * itself — an AI SDK tool call inside the agent's loop. Report it through the lease protocol (heartbeat,
     * checkpoint, submitted, complete) with the returned `leaseToken`. CancelledError once the task's Stop was
     * recorded. Never re-sent after it may have reached the server.
     */
    startWorkItem(taskId: string, body: StartWorkItemInput, options?: CallOptions): Promise<ClaimedWorkItem>;
    /**
     * Stop: records the task's cancellation boundary (intent version +1) and answers at once; the server's
     * cancellation engine then stops the children. Idempotent — a repeat returns the first boundary
     * (`alreadyRequested: true`), or `kind: "already_finished"` for a task that had already ended.
     */
    cancel(taskId: string, body?: CancelInput, options?: CallOptions): Promise<CancelResponse>;
    /**
     * The agent finished the task: every child has ended (ConflictError otherwise). From then on it shows as
     * completed, and Stop on it answers `already_finished` — nothing is running. Idempotent (`alreadyFinished`).
     */
    completeTask(taskId: string, body?: CompleteTaskInput, options?: CallOptions): Promise<FinishTaskResponse>;
    /** The agent gave up on the task, with the reason (every child must have ended). Idempotent. */
    failTask(taskId: string, body: FailTaskInput, options?: CallOptions): Promise<FinishTaskResponse>;
    /**
     * The cancellation summary, from recorded facts only: status IN_PROGRESS until the engine settled the Stop
     * (`settled_at`), each child's outcome in `tool_calls`. NotFoundError when no Stop was requested for the task.
     */
    getCancellation(taskId: string, options?: CallOptions): Promise<CancellationSummary>;
    /**
     * What Stop would do if pressed now — per child, the plan's action and the outcome it heads for, with the words
     * a person reads; writes nothing. The plan Stop then records is the same (the engine and the preview share it),
     * unless the ledger changes in between, or a configured model planner chooses another allowed action
     * (`model_may_advise`).
     */
    stopPreview(taskId: string, options?: CallOptions): Promise<StopPreview>;
    /**
     * Stop one step (a work item) and everything under it, while the rest of the task goes on: its boundary is
     * recorded first (its queued descendants never start; its commitment's checkpoint is refused), then each running
     * one is stopped through its mechanism. Idempotent: a repeat returns the first boundary.
     */
    stopWorkItem(workItemId: string, body?: CancelInput, options?: CallOptions): Promise<ChildCancelResponse>;
    /** The summary of a Stop of one step (scope `work_item`): IN_PROGRESS until its pass settled. */
    getWorkItemCancellation(workItemId: string, options?: CallOptions): Promise<CancellationSummary>;
    /** Stop everything of a conversation: each task still active gets its boundary (scope `conversation`). */
    stopConversation(conversationId: string, body?: CancelInput, options?: CallOptions): Promise<ManyCancelResponse>;
    /** Stop everything of a person (their owner id; a user token only their own): scope `person`. */
    stopPerson(ownerId: string, body?: CancelInput, options?: CallOptions): Promise<ManyCancelResponse>;
    /**
     * Quarantine a tool (`targetKind: "tool"`, its name) or an agent token (`"token"`, its id): from the commit nothing
     * of it is scheduled or claimed anywhere (QuarantinedError-like 409 `quarantined` with the reason), and everything
     * of it in flight is stopped like a Stop. A second switch on the same target returns the first (`alreadyOpen`).
     */
    openIncident(body: OpenIncidentInput, options?: CallOptions): Promise<OpenIncidentResponse>;
    incidents(options?: CallOptions): Promise<IncidentList["incidents"]>;
    /** One incident: the tasks it touched, each stopped step's outcome, what needs a person. */
    getIncident(incidentId: string, options?: CallOptions): Promise<IncidentDetail>;
    /** Ask to lift a kill switch; another person must confirm (maker-checker). */
    requestIncidentLift(incidentId: string, reason: string, options?: CallOptions): Promise<Incident>;
    confirmIncidentLift(incidentId: string, options?: CallOptions): Promise<Incident>;
    withdrawIncidentLift(incidentId: string, options?: CallOptions): Promise<Incident>;
    listReviewItems(query?: ListReviewItemsInput, options?: CallOptions): Promise<ReviewItemList>;
    metrics(query?: MetricsInput, options?: CallOptions): Promise<Metrics>;
    /** Claims the oldest queued work item that may start (of `toolNames`), with a lease; null when there is none. */
    claim(body: ClaimInput, options?: CallOptions): Promise<ClaimedWorkItem | null>;
    /** Extends the lease; `cancelRequested: true` means stop now. StaleLeaseError once the lease is no longer yours. */
    heartbeat(workItemId: string, body: HeartbeatInput, options?: CallOptions): Promise<HeartbeatResponse>;
    /**
     * The versioned check right before a commitment: CancelledError after the Stop, StaleIntentError when the
     * intent or the confirmed proposal moved. A passed checkpoint does not mean a later Stop can un-send the action.
     */
    checkpoint(workItemId: string, body: CheckpointInput, options?: CallOptions): Promise<CheckpointResponse>;
    /** Records the operation id of an external action the service accepted — before waiting for its result. */
    submitted(workItemId: string, body: SubmittedInput, options?: CallOptions): Promise<SubmissionResponse>;
    /**
     * Reports how the work item ended. Retried like the other worker calls; if an earlier attempt landed and
     * only its answer was lost, the retry is refused with StaleLeaseError whose `details.currentState` is the
     * outcome you reported (`attempts` > 1) — runWorker treats that as success.
     */
    complete(workItemId: string, body: CompleteInput, options?: CallOptions): Promise<WorkItem>;
    /**
     * The ledger's events as an async iterator, in order, each exactly once. A dropped connection is resumed
     * with Last-Event-ID = the last event received (the server replays what was missed), after a backoff; the
     * iterator ends when `signal` aborts or the caller breaks out of the loop.
     *
     * Limitation: on the all-tasks stream without `lastEventId`, the server starts at "now"; a connection that
     * drops before the first event arrived resumes at the new "now" (pass `lastEventId: 0`, or a known `seq`,
     * for an exact history). A task stream always starts at the task's first event.
     */
    events(options?: EventsOptions): AsyncGenerator<LedgerEvent, void, undefined>;
    /**
     * Calls any JSON route of the contract by name: the path is filled from `params`, `query` and `body` are
     * sent as the contract says, the answer is parsed with the route's response schema. The typed methods
     * above are thin wrappers of this.
     */
    call<K extends JsonRouteName>(name: K, args: CallArgs<K>): Promise<ResponseOf<K>>;
}
export {};

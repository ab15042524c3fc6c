import type { z } from "zod";
import type { Contract } from "../api/contract";
import type * as s from "../api/schemas";
import type { ReviewItemStatus, TaskStage } from "../ledger/states";
import type { RetryOptions } from "./retry";

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

// ---- the client's own options ----------------------------------------------------------------------

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

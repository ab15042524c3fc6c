/**
 * @module stopline/sdk — the client that agent runtimes and worker processes outside the app use.
 *
 *   const client = new StoplineClient({ baseUrl: "http://localhost:3000", token });
 *   const task = await client.task.create({ title: "order two chairs" });
 *   await client.workItem.schedule(task.id, { kind: "local_worker", toolName: "example.slow_count", mechanism: "abort_signal", intentVersion: task.intentVersion, correlationId: "count-1" });
 *   await client.task.cancel(task.id, { reason: "the user pressed Stop" });
 *   for await (const event of client.events({ taskId: task.id, signal })) …
 *   await runWorker({ client, tools: [slowCount], workerId: "worker-1", signal });
 *
 * It imports no Prisma, no React and no server-only code (test/lib/sdk/import-graph.test.ts enforces it): only
 * zod, eventsource-parser and the shared contract, schemas and state constants.
 */
export {
  StoplineClient,
  type TaskClient,
  type WorkItemClient,
  type ReviewClient,
  type IncidentClient,
  type StoplineClientOptions,
  type CallOptions,
  type CallArgs,
  type EventsOptions,
  type RouteName,
  type JsonRouteName,
  type ParamsOf,
  type QueryOf,
  type BodyOf,
  type ResponseOf,
  type Task,
  type TaskList,
  type TaskDetail,
  type WorkItem,
  type ClaimedWorkItem,
  type CancelResponse,
  type CancellationSummary,
  type StopPreview,
  type ChildCancelResponse,
  type Incident,
  type IncidentDetail,
  type OpenIncidentResponse,
  type ManyCancelResponse,
  type LedgerEvent,
  type LedgerEventRecord,
  type HeartbeatResponse,
  type CheckpointResponse,
  type SubmissionResponse,
  type ReviewItem,
  type ReviewItemList,
  type DecisionResponse,
  type Metrics,
  type CreateTaskInput,
  type ScheduleWorkItemInput,
  type StartWorkItemInput,
  type CancelInput,
  type ClaimInput,
  type HeartbeatInput,
  type CheckpointInput,
  type SubmittedInput,
  type CompleteInput,
  type DecisionInput,
  type ListTasksInput,
  type ListReviewItemsInput,
  type MetricsInput,
} from "./client";
export {
  StoplineError,
  CancelledError,
  StaleIntentError,
  StaleLeaseError,
  NotFoundError,
  ConflictError,
  UnauthorizedError,
  ForbiddenError,
  ValidationError,
  NetworkError,
  InvalidResponseError,
  SdkErrorCode,
  isStoplineError,
  type ValidationIssue,
} from "./errors";
export { ErrorCode } from "../errors";
export { defineTool } from "./define-tool";
export { hostTools, type HostedContract, type HostToolsOptions, type ToolHostHandle } from "./host";
export { runWorker, StoppedError, type RunWorkerOptions, type RunOutcome, type WorkerEvent } from "./worker";
export type { RetryOptions } from "./retry";
export type { ToolContext, ToolDefinition, InspectOutcome, CallRef } from "../tools/contract";
export { Mechanism, RiskLevel, WorkItemKind, WorkItemStatus, TaskStage, isTerminalItem } from "../ledger/states";
// The stop-conformance kit for tool authors (issue 13): the seeds' race list against your tool on a Stopline server.
export {
  runStopConformance,
  formatConformanceTable,
  failedCases,
  CONFORMANCE_CASES,
  ConformanceCase,
  Verdict,
  type StopConformanceOptions,
  type CaseResult,
  type ServiceSays,
} from "./conformance";

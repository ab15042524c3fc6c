import type {
  CallOptions,
  CancelInput,
  CancelResponse,
  CancellationSummary,
  CompleteTaskInput,
  CreateTaskInput,
  FailTaskInput,
  FinishTaskResponse,
  ListTasksInput,
  ManyCancelResponse,
  StopPreview,
  Task,
  TaskDetail,
  TaskList,
} from "../client-types";
import { NetworkError } from "../errors";
import { abortableSleep } from "../retry";
import type { Transport } from "../transport";
import { callRoute } from "./call";

/** Tasks and their Stop (agent runtimes): `client.task`. */
export class TaskClient {
  readonly #transport: Transport;
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** Creates a task. Never re-sent after it may have reached the server (the API has no idempotency key for tasks). */
  create(body: CreateTaskInput, options?: CallOptions): Promise<Task> {
    return callRoute(this.#transport, "createTask", { body, ...options });
  }

  list(query: ListTasksInput = {}, options?: CallOptions): Promise<TaskList> {
    const { status, ...rest } = query;
    const joined = status === undefined ? undefined : typeof status === "string" ? status : status.join(",");
    return callRoute(this.#transport, "listTasks", { query: { ...rest, ...(joined ? { status: joined } : {}) }, ...options });
  }

  /** A task with its work items, resources, side effects and review items. */
  get(taskId: string, options?: CallOptions): Promise<TaskDetail> {
    return callRoute(this.#transport, "getTask", { params: { taskId }, ...options });
  }

  /**
   * Stop: records the task's cancellation boundary (intent version +1) and answers at once; the server's
   * cancellation engine then stops the children. Idempotent — a repeat returns the first boundary
   * (`alreadyRequested: true`), or `kind: "already_finished"` for a task that had already ended.
   */
  cancel(taskId: string, body: CancelInput = {}, options?: CallOptions): Promise<CancelResponse> {
    return callRoute(this.#transport, "cancelTask", { params: { taskId }, body, ...options });
  }

  /**
   * The agent finished the task: every child has ended (ConflictError otherwise). From then on it shows as
   * completed, and Stop on it answers `already_finished` — nothing is running. Idempotent (`alreadyFinished`).
   */
  complete(taskId: string, body: CompleteTaskInput = {}, options?: CallOptions): Promise<FinishTaskResponse> {
    return callRoute(this.#transport, "completeTask", { params: { taskId }, body, ...options });
  }

  /** The agent gave up on the task, with the reason (every child must have ended). Idempotent. */
  fail(taskId: string, body: FailTaskInput, options?: CallOptions): Promise<FinishTaskResponse> {
    return callRoute(this.#transport, "failTask", { params: { taskId }, body, ...options });
  }

  /**
   * The cancellation summary, from recorded facts only: status IN_PROGRESS until the engine settled the Stop
   * (`settled_at`), each child's outcome in `tool_calls`. NotFoundError when no Stop was requested for the task.
   */
  cancellation(taskId: string, options?: CallOptions): Promise<CancellationSummary> {
    return callRoute(this.#transport, "getCancellation", { params: { taskId }, ...options });
  }

  /**
   * The cancellation summary once it is final: polls `cancellation` until the Stop is settled (`settled_at` set,
   * status no longer IN_PROGRESS) — the engine's considered answer, which later facts are appended to but never
   * overturn. Throws a `StoplineError` with code `timeout` after `timeoutMs` (default 60 s).
   */
  async waitForCancellation(taskId: string, options: { timeoutMs?: number; intervalMs?: number; signal?: AbortSignal } = {}): Promise<CancellationSummary> {
    const deadline = Date.now() + (options.timeoutMs ?? 60_000);
    for (;;) {
      const summary = await this.cancellation(taskId, { signal: options.signal });
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
    return callRoute(this.#transport, "stopPreview", { params: { taskId }, ...options });
  }

  /** Stop everything of a conversation: each task still active gets its boundary (scope `conversation`). */
  stopConversation(conversationId: string, body: CancelInput = {}, options?: CallOptions): Promise<ManyCancelResponse> {
    return callRoute(this.#transport, "stopConversation", { params: { conversationId }, body, ...options });
  }

  /** Stop everything of a person (their owner id; a user token only their own): scope `person`. */
  stopPerson(ownerId: string, body: CancelInput = {}, options?: CallOptions): Promise<ManyCancelResponse> {
    return callRoute(this.#transport, "stopPerson", { params: { ownerId }, body, ...options });
  }
}

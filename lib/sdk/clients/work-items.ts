import type {
  CallOptions,
  CancelInput,
  CancellationSummary,
  CheckpointInput,
  CheckpointResponse,
  ChildCancelResponse,
  ClaimedWorkItem,
  ClaimInput,
  CompleteInput,
  HeartbeatInput,
  HeartbeatResponse,
  ScheduleWorkItemInput,
  StartWorkItemInput,
  SubmissionResponse,
  SubmittedInput,
  WorkItem,
} from "../client-types";
import { ConflictError } from "../errors";
import type { Transport } from "../transport";
import { callRoute } from "./call";
import type { TaskClient } from "./tasks";

/** Work items — a task's steps: scheduling (agents), the lease protocol (workers), a Stop of one step: `client.workItem`. */
export class WorkItemClient {
  readonly #transport: Transport;
  readonly #tasks: TaskClient;
  constructor(transport: Transport, tasks: TaskClient) {
    this.#transport = transport;
    this.#tasks = tasks;
  }

  /**
   * Schedules a work item under a task (`intentVersion`: the task's intent version it was prepared under).
   * Throws CancelledError once the task's Stop was recorded, StaleIntentError when the intent moved.
   *
   * With a `correlationId` or `idempotencyKey` the call is idempotent: it is retried like a read, and a repeat
   * that finds the item already scheduled (by an earlier attempt whose answer was lost, or an earlier run of
   * the agent) returns that item — if it is the same request (tool, kind, mechanism); otherwise ConflictError.
   */
  async schedule(taskId: string, body: ScheduleWorkItemInput, options?: CallOptions): Promise<WorkItem> {
    const keyed = !!(body.correlationId || body.idempotencyKey);
    try {
      return await this.#transport.send("scheduleWorkItem", { params: { taskId }, body, ...options }, keyed ? "idempotent" : "once");
    } catch (error) {
      const existingId = error instanceof ConflictError ? error.details.workItemId : undefined;
      if (!keyed || typeof existingId !== "string") throw error;
      const existing = (await this.#tasks.get(taskId, options)).workItems.find((w) => w.id === existingId);
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
  start(taskId: string, body: StartWorkItemInput, options?: CallOptions): Promise<ClaimedWorkItem> {
    return callRoute(this.#transport, "startWorkItem", { params: { taskId }, body, ...options });
  }

  /**
   * Stop one step (a work item) and everything under it, while the rest of the task goes on: its boundary is
   * recorded first (its queued descendants never start; its commitment's checkpoint is refused), then each running
   * one is stopped through its mechanism. Idempotent: a repeat returns the first boundary.
   */
  stop(workItemId: string, body: CancelInput = {}, options?: CallOptions): Promise<ChildCancelResponse> {
    return callRoute(this.#transport, "stopWorkItem", { params: { id: workItemId }, body, ...options });
  }

  /** The summary of a Stop of one step (scope `work_item`): IN_PROGRESS until its pass settled. */
  cancellation(workItemId: string, options?: CallOptions): Promise<CancellationSummary> {
    return callRoute(this.#transport, "getWorkItemCancellation", { params: { id: workItemId }, ...options });
  }

  // ---- the lease protocol (worker tokens) --------------------------------------------------------------

  /** Claims the oldest queued work item that may start (of `toolNames`), with a lease; null when there is none. */
  async claim(body: ClaimInput, options?: CallOptions): Promise<ClaimedWorkItem | null> {
    return (await callRoute(this.#transport, "claim", { body, ...options })).workItem;
  }

  /** Extends the lease; `cancelRequested: true` means stop now. StaleLeaseError once the lease is no longer yours. */
  heartbeat(workItemId: string, body: HeartbeatInput, options?: CallOptions): Promise<HeartbeatResponse> {
    return callRoute(this.#transport, "heartbeat", { params: { id: workItemId }, body, ...options });
  }

  /**
   * The versioned check right before a commitment: CancelledError after the Stop, StaleIntentError when the
   * intent or the confirmed proposal moved. A passed checkpoint does not mean a later Stop can un-send the action.
   */
  checkpoint(workItemId: string, body: CheckpointInput, options?: CallOptions): Promise<CheckpointResponse> {
    return callRoute(this.#transport, "checkpoint", { params: { id: workItemId }, body, ...options });
  }

  /** Records the operation id of an external action the service accepted — before waiting for its result. */
  submitted(workItemId: string, body: SubmittedInput, options?: CallOptions): Promise<SubmissionResponse> {
    return callRoute(this.#transport, "submitted", { params: { id: workItemId }, body, ...options });
  }

  /**
   * Reports how the work item ended. Retried like the other worker calls; if an earlier attempt landed and
   * only its answer was lost, the retry is refused with StaleLeaseError whose `details.currentState` is the
   * outcome you reported (`attempts` > 1) — runWorker treats that as success.
   */
  complete(workItemId: string, body: CompleteInput, options?: CallOptions): Promise<WorkItem> {
    return callRoute(this.#transport, "complete", { params: { id: workItemId }, body, ...options });
  }
}

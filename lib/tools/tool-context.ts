import type { ToolContext } from "./contract";

/**
 * The running call's ToolContext, built once for every runner (issue 21 item 3): the in-process worker writes to the
 * ledger, the SDK's worker and the AI SDK wrapper call the worker API — each gives its transport; the rules live here.
 * Pure of server imports (the SDK ships it).
 *
 * It also keeps the facts the run-ending rule reads (lib/tools/run-ending.ts): whether the action was accepted
 * (`submitted()`), whether a checkpoint passed, the last partial result reported.
 */

export type SubmittedDetails = NonNullable<Parameters<ToolContext["submitted"]>[1]>;
export type ProgressUpdate = Parameters<ToolContext["reportProgress"]>[0];

/** How a runner records what the running code says. Each call records before it resolves. */
export interface ToolContextTransport {
  checkpoint(): Promise<unknown>;
  submitted(operationId: string, details: SubmittedDetails): Promise<unknown>;
  holdResource(type: string, handle: string): Promise<{ id: string }>;
  releaseResource(type: string, handle: string): Promise<unknown>;
  reportPartial(result: unknown, complete: boolean): Promise<unknown>;
  /** Informational: the transport swallows (or reports) its own failures — progress never stops a call. */
  reportProgress(progress: ProgressUpdate): Promise<unknown>;
}

export interface CallIdentity {
  workItemId: string;
  taskId: string;
  toolCallId: string;
  idempotencyKey: string;
  traceparent?: string;
}

/** What the running code said so far, as the run-ending rule needs it. */
export interface RunningCallFacts {
  /** `submitted()` was called (its operation id and details): the service accepted the action. */
  submitted: ({ operationId: string } & SubmittedDetails) | null;
  /** A `checkpoint()` passed: from here the action may reach its service even if its answer is lost. */
  checkpointPassed: boolean;
  /** The last partial result reported. */
  partial: { result: unknown; complete: boolean } | null;
}

export interface RunningCall {
  ctx: ToolContext;
  facts: RunningCallFacts;
  /** Drops a progress report still waiting to be coalesced (call when the run ends). */
  dispose(): void;
}

/** Progress reports closer together than this are coalesced: at most one write per interval, the latest wins. */
export const PROGRESS_INTERVAL_MS = 250;

export function runningCall(call: CallIdentity, signal: AbortSignal, transport: ToolContextTransport): RunningCall {
  const facts: RunningCallFacts = { submitted: null, checkpointPassed: false, partial: null };
  const progress = { lastSentAt: 0, pending: null as ProgressUpdate | null, timer: null as ReturnType<typeof setTimeout> | null };
  const send = (report: ProgressUpdate) => {
    progress.lastSentAt = Date.now();
    return transport.reportProgress(report);
  };
  const ctx: ToolContext = {
    signal,
    idempotencyKey: call.idempotencyKey,
    workItemId: call.workItemId,
    taskId: call.taskId,
    toolCallId: call.toolCallId,
    traceparent: call.traceparent, // the tool call's span: adapters send it on (lib/observability)
    async checkpoint() {
      if (signal.aborted) throw signal.reason;
      await transport.checkpoint();
      facts.checkpointPassed = true;
    },
    async submitted(operationId, details = {}) {
      facts.submitted = { operationId, ...details }; // from here on, an unknown ending is uncertain, never "failed" or "cancelled"
      await transport.submitted(operationId, details);
    },
    async holdResource(type, handle) {
      const resource = await transport.holdResource(type, handle);
      return { id: resource.id, workItemId: call.workItemId, type, handle };
    },
    async releaseResource(type, handle) {
      await transport.releaseResource(type, handle);
    },
    async reportPartial(result, { complete }) {
      facts.partial = { result, complete };
      await transport.reportPartial(result, complete);
    },
    async reportProgress(report) {
      if (signal.aborted) return; // after a Stop the call's words are its outcome, not its progress
      const since = Date.now() - progress.lastSentAt;
      if (since >= PROGRESS_INTERVAL_MS && !progress.timer) {
        await send(report);
        return;
      }
      progress.pending = report;
      progress.timer ??= setTimeout(
        () => {
          progress.timer = null;
          const latest = progress.pending;
          progress.pending = null;
          if (latest && !signal.aborted) void send(latest);
        },
        Math.max(0, PROGRESS_INTERVAL_MS - since),
      );
    },
  };
  return {
    ctx,
    facts,
    dispose() {
      if (progress.timer) clearTimeout(progress.timer);
      progress.timer = null;
      progress.pending = null;
    },
  };
}

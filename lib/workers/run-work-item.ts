import type { Database } from "../db/client";
import { toolCall } from "../observability/tool-call";
import { toolCallTraceparent } from "../observability/tracing";
import type { WorkItem } from "../db/generated/sqlite/client.ts";
import { isAppError } from "../errors";
import { checkpointWorkItem } from "../ledger/checkpoint-work-item";
import { completeWorkItem, type CompleteInput, type WorkerOutcome } from "../ledger/complete-work-item";
import { heartbeatWorkItem } from "../ledger/heartbeat-work-item";
import { markUncertain } from "../ledger/mark-uncertain";
import { recordSubmission } from "../ledger/record-submission";
import { reportPartial } from "../ledger/report-partial";
import type { ProgressReport } from "../ledger/progress";
import { reportProgress } from "../ledger/report-progress";
import { holdResource, releaseResourceRequested } from "../ledger/resources";
import { recordResourceIntents, settleIntentsAfterAnswer } from "../ledger/resource-intents";
import { WorkItemStatus } from "../ledger/states";
import { onCommitted } from "../events/bus";
import { CancelledError, StoppedError, type ToolContext, type ToolDefinition } from "../tools/contract";
import { decideRunEnding } from "../tools/run-ending";
import { LedgerEvent } from "../ledger/events";

const PROGRESS_INTERVAL_MS = 250;

export interface RunOptions {
  database: Database;
  tool: ToolDefinition;
  item: WorkItem;
  workerId: string;
  leaseMs: number;
  heartbeatMs: number;
  /** How the report is written (the pool's slot also claims its next item with it); completeWorkItem by default. */
  complete?: (input: CompleteInput) => Promise<unknown>;
}

export interface RunReport {
  outcome: WorkerOutcome | "uncertain" | "lost_lease";
  /** When the running code's AbortSignal fired (ms since epoch), if it did. */
  abortedAt: number | null;
}

/**
 * Runs one claimed work item: gives the tool an AbortSignal that fires when the task's cancellation is
 * recorded (in-process: on the commit notification, within milliseconds; from another process: on the
 * next heartbeat), heartbeats the lease, and reports how it ended — by the one rule every runner shares
 * (lib/tools/run-ending.ts): it never decides that an accepted external action did not happen.
 */
export const runWorkItem = (options: RunOptions): Promise<RunReport> => toolCall(options.item, () => runClaimedItem(options));
async function runClaimedItem(options: RunOptions): Promise<RunReport> {
  const { database, tool, item, workerId } = options;
  const actor = `worker:${workerId}`;
  const leaseToken = item.leaseToken!;
  const lease = { workItemId: item.id, leaseToken };
  const controller = new AbortController();
  let abortedAt: number | null = null;
  let submitted = false;
  let mayHaveSubmitted = false;
  const partial: { reported: { complete: boolean; result: unknown } | null } = { reported: null };
  let lostLease = false;
  const abort = (reason: string) => {
    if (controller.signal.aborted) return;
    abortedAt = Date.now();
    controller.abort(new CancelledError(reason));
  };

  const unsubscribe = onCommitted((events) => {
    for (const e of events) {
      if (e.taskId === item.taskId && e.type === LedgerEvent.taskCancelRequested) abort("the task's cancellation was recorded");
      if (e.workItemId === item.id && e.toState === WorkItemStatus.cancelling) abort("the engine is stopping this work item");
      if (e.workItemId === item.id && e.type === LedgerEvent.workItemStopRequested) abort("a Stop of this step was recorded");
    }
  });
  const heartbeat = setInterval(async () => {
    try {
      const hb = await heartbeatWorkItem(database, { ...lease, leaseMs: options.leaseMs, actor });
      if (hb.cancelRequested) abort("the heartbeat reported a cancellation");
    } catch (error) {
      if (isAppError(error) && (error.code === "stale_lease" || error.code === "not_found")) {
        lostLease = true;
        abort("this worker's lease is no longer current");
      }
    }
  }, options.heartbeatMs);

  // Progress is coalesced: at most one ledger write per PROGRESS_INTERVAL_MS, the latest report wins.
  const progress = { lastWriteAt: 0, pending: null as ProgressReport | null, timer: null as NodeJS.Timeout | null };
  const writeProgress = async (report: ProgressReport) => {
    progress.lastWriteAt = Date.now();
    // A stale lease or a settled item is not the running code's problem here; the heartbeat handles the lease.
    await reportProgress(database, { ...lease, progress: report, actor }).catch(() => {});
  };
  const flushProgress = () => {
    progress.timer = null;
    const report = progress.pending;
    progress.pending = null;
    if (report && !controller.signal.aborted) void writeProgress(report);
  };

  const ctx: ToolContext = {
    traceparent: toolCallTraceparent(item), // the tool call's span: adapters send it on (lib/observability)
    signal: controller.signal,
    idempotencyKey: item.idempotencyKey,
    workItemId: item.id,
    taskId: item.taskId,
    toolCallId: item.correlationId,
    async checkpoint() {
      if (controller.signal.aborted) throw controller.signal.reason;
      await checkpointWorkItem(database, { ...lease, actor });
      // From here the action may reach the service even if its answer never reaches us (a lost response):
      // any failure after a passed checkpoint is uncertain, settled by asking the service by idempotency key.
      mayHaveSubmitted = true;
    },
    async submitted(operationId, details = {}) {
      submitted = true; // from here on, an unknown ending is uncertain, never "failed" or "cancelled"
      await recordSubmission(database, { ...lease, operationId, ...details, actor });
    },
    holdResource: (type, handle) => holdResource(database, { ...lease, type, handle, actor }).then((r) => ({ id: r.id, workItemId: item.id, type, handle })),
    async releaseResource(type, handle) {
      await releaseResourceRequested(database, { workItemId: item.id, type, handle, actor, reason: "released by the running code; to be verified" });
    },
    async reportPartial(result, { complete }) {
      partial.reported = { complete, result };
      await reportPartial(database, { ...lease, result, complete, actor });
    },
    async reportProgress(report) {
      if (controller.signal.aborted) return;
      const since = Date.now() - progress.lastWriteAt;
      if (since >= PROGRESS_INTERVAL_MS && !progress.timer) return writeProgress(report);
      progress.pending = report;
      progress.timer ??= setTimeout(flushProgress, Math.max(0, PROGRESS_INTERVAL_MS - since));
    },
  };

  const finish = async (outcome: WorkerOutcome, extra: { result?: unknown; error?: string; partialResult?: unknown } = {}): Promise<RunReport> => {
    try {
      await (options.complete ?? ((i: CompleteInput) => completeWorkItem(database, i)))({ ...lease, outcome, ...extra, actor });
      return { outcome, abortedAt };
    } catch (error) {
      // The ledger refused because the lease moved on or the engine settled the item meanwhile: its record stands.
      if (isAppError(error) && ["stale_lease", "not_found", "conflict", "illegal_transition"].includes(error.code)) return { outcome: "lost_lease", abortedAt };
      throw error;
    }
  };

  try {
    const input = tool.input ? tool.input.parse(item.input ?? undefined) : item.input;
    // Written ahead: what the call may hold is in the ledger before its request leaves (resource-intents.ts).
    await writeIntentsAhead(database, tool, { ...lease, actor });
    const result = await tool.run(input, ctx);
    if (tool.resources?.length) await settleIntentsAfterAnswer(database, { ...lease, actor }).catch(() => {}); // the answer named all it holds (no write for a tool that declares none: the hot path stays as it was)
    return await finish("completed", { result: result ?? null });
  } catch (error) {
    if (lostLease) return { outcome: "lost_lease", abortedAt };
    // A Stop of this step alone (issue 13) may reach its service (the engine's provider cancel) before its signal
    // reaches this process: an error after such a Stop is the Stop's doing, not a failure of the tool — ask the ledger.
    if (!controller.signal.aborted && !(error instanceof StoppedError) && (await stopOfThisStepRecorded(database, item.id)))
      abort("a Stop of this step was recorded");
    const ending = decideRunEnding({
      mechanism: tool.mechanism,
      commitsEffect: tool.commitsEffect,
      canInspect: !!tool.inspect,
      submitted,
      checkpointPassed: mayHaveSubmitted,
      stopped: controller.signal.aborted,
      confirmedStop: error instanceof StoppedError,
      // The ledger's checkpoint said no (its own cancel_requested, not this run's abort reason): nothing was sent.
      refusedAtCheckpoint: isAppError(error) && error.code === "cancel_requested",
      partial: partial.reported,
      message: error instanceof Error ? error.message : String(error),
    });
    switch (ending.outcome) {
      case "uncertain":
        await markUncertain(database, { workItemId: item.id, leaseToken, reason: ending.reason, actor }).catch(() => {});
        return { outcome: "uncertain", abortedAt };
      case "failed":
        return finish("failed", { error: ending.error });
      case "cancelled":
        return finish("cancelled");
      default:
        return finish(ending.outcome, { partialResult: ending.partialResult });
    }
  } finally {
    clearInterval(heartbeat);
    if (progress.timer) clearTimeout(progress.timer);
    unsubscribe();
  }
}

/** Was a Stop of this step (or of a step above it) recorded, or is the engine stopping it? */
async function stopOfThisStepRecorded(database: RunOptions["database"], workItemId: string): Promise<boolean> {
  const row = await database.prisma.workItem.findUnique({ where: { id: workItemId }, select: { status: true, stopRequestedAt: true } }).catch(() => null);
  return !!row && (row.stopRequestedAt !== null || row.status === WorkItemStatus.cancelling);
}

/**
 * Written ahead (docs/ARCHITECTURE.md, invariant 4): one intent per resource kind the tool declares, recorded before
 * run() starts — so before any request leaves. A ledger that refuses (the lease moved on) stops the run here.
 */
export async function writeIntentsAhead(
  database: RunOptions["database"],
  tool: ToolDefinition,
  holder: { workItemId: string; leaseToken: string; actor: string },
) {
  if (tool.resources?.length) await recordResourceIntents(database, { ...holder, types: tool.resources });
}

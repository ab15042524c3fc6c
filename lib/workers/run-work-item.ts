import type { Database } from "../db/client";
import { toolCall } from "../observability/tool-call";
import { toolCallTraceparent } from "../observability/tracing";
import type { WorkItem } from "../db/generated/sqlite/client.ts";
import { isAppError, isCheckpointRefusal } from "../errors";
import { checkpointWorkItem } from "../ledger/checkpoint-work-item";
import { completeWorkItem, type CompleteInput, type WorkerOutcome } from "../ledger/complete-work-item";
import { heartbeatWorkItem } from "../ledger/heartbeat-work-item";
import { markUncertain } from "../ledger/mark-uncertain";
import { recordSubmission } from "../ledger/record-submission";
import { reportPartial } from "../ledger/report-partial";
import { reportProgress } from "../ledger/report-progress";
import { holdResource, releaseResourceRequested } from "../ledger/resources";
import { recordResourceIntents, settleIntentsAfterAnswer } from "../ledger/resource-intents";
import { WorkItemStatus } from "../ledger/states";
import { CancelledError, StoppedError, type ToolDefinition } from "../tools/contract";
import { runningCall } from "../tools/tool-context";
import { endingOfRun } from "../tools/run-ending";
import { onStopNotice, StopNotice, stopNoticeHeard } from "./stop-notices";

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
  let lostLease = false;
  const abort = (reason: string) => {
    if (controller.signal.aborted) return;
    abortedAt = Date.now();
    controller.abort(new CancelledError(reason));
  };

  const unsubscribe = onStopNotice(item, abort);
  /** Renews the lease and learns whether to stop; a lease that moved on aborts the run. Other faults are thrown. */
  const confirmLease = async (when: string) => {
    try {
      const hb = await heartbeatWorkItem(database, { ...lease, leaseMs: options.leaseMs, actor });
      if (hb.cancelRequested) abort(`the heartbeat ${when} reported a cancellation`);
    } catch (error) {
      if (!(isAppError(error) && (error.code === "stale_lease" || error.code === "not_found"))) throw error;
      lostLease = true;
      abort("this worker's lease is no longer current");
    }
  };
  const heartbeat = setInterval(() => confirmLease("while running").catch(() => {}), options.heartbeatMs);

  // The running code's context (lib/tools/tool-context.ts): every method records to the ledger before it returns.
  const running = runningCall(
    { workItemId: item.id, taskId: item.taskId, toolCallId: item.correlationId, idempotencyKey: item.idempotencyKey, traceparent: toolCallTraceparent(item) },
    controller.signal,
    {
      checkpoint: () => checkpointWorkItem(database, { ...lease, actor }),
      submitted: (operationId, details) => recordSubmission(database, { ...lease, operationId, ...details, actor }),
      holdResource: (type, handle) => holdResource(database, { ...lease, type, handle, actor }),
      releaseResource: (type, handle) =>
        releaseResourceRequested(database, { workItemId: item.id, type, handle, actor, reason: "released by the running code; to be verified" }),
      reportPartial: (result, complete) => reportPartial(database, { ...lease, result, complete, actor }),
      // A stale lease or a settled item is not the running code's problem here; the heartbeat handles the lease.
      reportProgress: (report) => reportProgress(database, { ...lease, progress: report, actor }).catch(() => {}),
    },
  );
  const { ctx, facts } = running;

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
    // A run starts only on a lease this worker still holds: one slowed past half its lease (a paused process, a
    // blocked event loop) may have had the item recovered, or its task stopped, meanwhile — it asks the ledger before anything leaves.
    // So does one whose Stop was announced before this run began listening (stop-notices.ts).
    const leaseAged = item.leaseExpiresAt === null || Date.now() >= item.leaseExpiresAt.getTime() - options.leaseMs / 2;
    if (leaseAged || stopNoticeHeard(item)) await confirmLease("before the start");
    // Stopped before its request left (the Stop's notice came while the lease was checked): nothing was sent.
    if (controller.signal.aborted) return lostLease ? { outcome: "lost_lease", abortedAt } : await finish("cancelled");
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
      abort(StopNotice.itemStopRequested);
    const ending = endingOfRun({ mechanism: tool.mechanism, commitsEffect: tool.commitsEffect, canInspect: !!tool.inspect }, facts, {
      error,
      stopped: controller.signal.aborted,
      // The ledger's checkpoint said no (its own cancel_requested, not this run's abort reason): nothing was sent.
      refusedAtCheckpoint: isCheckpointRefusal(error, controller.signal.reason),
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
    running.dispose();
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

import { CANCEL_DEFAULTS } from "./dispatch-fence";
import type { Database } from "../db/client";
import { stepEvent, stopStep } from "../observability/tracing";
import type { Task } from "../db/generated/sqlite/client.ts";
import { isTerminalItem, Mechanism, WorkItemStatus } from "../ledger/states";
import { writeLedger } from "../ledger/write";
import { PlanAction } from "./plan";
import { reconcileOrphanReports, reconcileWorkItem } from "./steps/5-reconcile";
import { readBoundaryFacts } from "./read-boundary-facts";
import { recordSettlementIn } from "./steps/8-record-settlement";
import { isOwnerHosted, OWNER_SETTLE_TIMEOUT_MS, waitForOwners } from "./owner-hosted";
import { openReviewsForEffects } from "./steps/7-review";
import { recoverChildrenOfGoneProcesses } from "./process-liveness";
import { intentsAwaitingResolution } from "../ledger/resource-intents";
import { waitForChildren } from "./wait-for-children";
import type { EngineOptions } from "./engine-options";
import { cancelQueued } from "./steps/2-remove-queued";
import { recordPlanOnce } from "./steps/3-plan";
import { abortChildren, countStoppingByItself, stopChild, stopsByAbortSignal } from "./steps/4-stop-running";
import { awaitingCleanup, cleanupAndVerify } from "./steps/6-clean-up-and-verify";
import { BUSY_STATUSES, settleIfNothingInFlight, settleTaskIn } from "./steps/8-settle";

/**
 * Runs the cancellation of one task after its boundary, in the design's order: plan → stop queued → abort
 * in-flight children through their mechanisms → let cooperative children settle (partial results are
 * classified by their runners) → reconcile accepted actions → cleanup and the verification gate → review
 * items → settle the task. Every step is safe to repeat (compare-and-set), so a restart simply runs it again.
 */
/**
 * How a pass ended: "settled_quietly" — nothing was in flight and one statement settled the task (on PostgreSQL
 * that statement also ended the engine lease); "pass" — the full pass ran; "no_boundary" — nothing to do.
 */
export type PassEnd = "settled_quietly" | "pass" | "no_boundary";

export async function executeCancellation(
  database: Database,
  taskId: string,
  options: EngineOptions,
  at: { queuedCancelled?: boolean; task?: Task } = {},
): Promise<PassEnd> {
  const o = {
    verifyDelayMs: Number(process.env.STOPLINE_VERIFY_DELAY_MS ?? 2_000),
    settleTimeoutMs: 5_000,
    ...CANCEL_DEFAULTS,
    ...options,
  };
  // 1. queued children never start. First, because no plan may choose otherwise (plan.ts: a queued
  //    child's only allowed action is abort), it needs nothing read before it (one statement, which acts only
  //    once the boundary exists), and every millisecond a queued child waits it could be claimed by a worker
  //    that has not seen the boundary (the claim's guard refuses it anyway).
  if (!at.queuedCancelled) await cancelQueued(database, taskId);
  const facts = await readBoundaryFacts(database, taskId, at.task);
  if (!facts?.task.cancelRequestedAt) return "no_boundary";
  const { task } = facts;
  // The children alive at the boundary: those still active, and those that ended after it — removed from dispatch
  // (by this run just now, or another run at the same moment: they were queued) or stopped by themselves on the
  // boundary's signal before this read (they were in flight). The plan covers every child alive then, exactly
  // once, whichever run records it; the stopping below acts on those still active.
  const { found, items } = facts;
  const active = found.filter((i) => !isTerminalItem(i.status));
  const quiet = await settleIfNothingInFlight(database, facts, items, active, o);
  if (quiet) return quiet === "in_one_statement" ? "settled_quietly" : "pass";

  // 2. plan (recorded once: a second engine run reuses the first plan)
  const { plan, recorded: firstRun } = await stopStep({ taskId }, "plan", () => recordPlanOnce(database, task, items, o));
  const actionOf = new Map(plan.steps.map((s) => [s.tool_call_id, s.action]));

  // 3. stop in-flight children through their mechanisms: those stopped by their AbortSignal all at once (one
  //    statement), each with its span; the others one by one (a service to call, an answer to wait for).
  const inFlight = active.filter((i) => i.status !== WorkItemStatus.queued).map((item) => ({ item, action: actionOf.get(item.id) ?? PlanAction.abort }));
  const aborted: typeof inFlight = [];
  const calledOneByOne: typeof inFlight = [];
  for (const child of inFlight) (stopsByAbortSignal(child.item, child.action) ? aborted : calledOneByOne).push(child);
  const steps = await abortChildren(database, taskId, aborted, firstRun);
  for (const [i, step] of steps.entries())
    if (step)
      await stopStep({ taskId }, "child", async () => stepEvent(step), {
        "stopline.work_item_id": step.workItemId,
        "stopline.tool": aborted[i].item.toolName,
        "stopline.action": aborted[i].action,
      });
  for (const { item, action } of calledOneByOne) {
    const tool = o.registry.get(item.toolName);
    await stopStep({ taskId }, "child", () => stopChild(database, item, tool, action, { ...o, firstRun }), {
      "stopline.work_item_id": item.id,
      "stopline.tool": item.toolName,
      "stopline.action": action,
    });
  }

  // 4. children stopping by themselves get time to report (partial results are classified by their runners)
  const stillStopping = await waitForChildren({ taskId }, () => countStoppingByItself(database, taskId), o.settleTimeoutMs);
  // …and when that left nothing in flight (the common case: every child stopped on its signal) and nothing to account
  // for, the pass ends as a Stop that found nothing in flight does: the same checks, read again now, and on PostgreSQL
  // one statement — steps 5–7 would find nothing to act on (issue 22 §5: ~15 statements less per such Stop).
  if (!stillStopping) {
    const after = await readBoundaryFacts(database, taskId);
    const quietNow =
      after &&
      (await settleIfNothingInFlight(
        database,
        after,
        after.items,
        after.found.filter((i) => !isTerminalItem(i.status)),
        o,
      ));
    if (quietNow) return quietNow === "in_one_statement" ? "settled_quietly" : "pass";
  }
  // …and children whose worker's process is gone are not "still running": recovered, stopped through their service
  // (an acknowledged cancel is not sent twice), then asked about and cleaned up below (process-liveness.ts).
  for (const id of await recoverChildrenOfGoneProcesses(database, taskId)) {
    const item = await database.prisma.workItem.findUniqueOrThrow({ where: { id } });
    if (!isTerminalItem(item.status))
      await stopChild(database, item, o.registry.get(item.toolName), actionOf.get(item.id) ?? PlanAction.abort, { ...o, firstRun: false });
  }
  // …and children whose stop contract runs in their owner's process report what their service said (owner-hosted.ts).
  await waitForOwners(database, { taskId }, o.registry, o.ownerSettleTimeoutMs ?? OWNER_SETTLE_TIMEOUT_MS);

  // …and the pass ends with its settlement (from here the summary is the engine's considered answer).
  await finishCancellation(database, taskId, o, { endOfPass: true });
  return "pass";
}

/**
 * Steps 5–8, also run again by the maintenance pass for a task whose children settled late (a
 * provider-side stop that took a while, an unrecoverable child that finally ended): reconcile accepted
 * actions whose outcome is unknown, clean up and verify resources, open review items, settle the task.
 */
export async function finishCancellation(database: Database, taskId: string, options: EngineOptions, at: { endOfPass?: boolean } = {}) {
  const o = { verifyDelayMs: Number(process.env.STOPLINE_VERIFY_DELAY_MS ?? 2_000), ...options };
  const task = await database.prisma.task.findUniqueOrThrow({ where: { id: taskId } });
  // 5. reconcile accepted actions whose outcome is unknown
  // (a cooperative child still `cancelling` is stopping by itself; an uncertain one of any mechanism is asked)
  const unknown = await database.prisma.workItem.findMany({
    where: {
      taskId,
      OR: [
        { status: WorkItemStatus.uncertain },
        { status: { in: [WorkItemStatus.submitted, WorkItemStatus.cancelling] }, mechanism: { not: Mechanism.abortSignal } },
      ],
    },
  });
  // (a child whose owner still runs its stop contract is the owner's to report, not this engine's to guess)
  const now = new Date();
  for (const item of unknown)
    if (!isOwnerHosted(item, o.registry, now))
      await stopStep({ taskId }, "reconciliation", () => reconcileWorkItem(database, item, o.registry.get(item.toolName), o.registry, o), {
        "stopline.work_item_id": item.id,
        "stopline.tool": item.toolName,
      });
  await reconcileOrphanReports(database, o.registry, { taskId });

  // A child that stopped between step 6's read and step 8 left resources no cleanup has seen: step 8 refuses
  // to settle over them, so steps 6–8 run again (bounded; the maintenance pass covers a child slower still).
  for (let round = 0; round < 3; round++) {
    // 6. cleanup and the verification gate
    await stopStep({ taskId }, "verification", () => cleanupAndVerify(database, taskId, o));

    // 7. what only a person can decide
    await openReviewsForEffects(database, taskId, task.riskLevel, o.registry);

    // 8. the task is cancelled when nothing is still being stopped and no ended child's resource awaits its
    //    cleanup; at the end of a pass, its settlement is recorded in the same transaction — nobody ever reads
    //    "cancelled" while the summary says IN_PROGRESS.
    const stillToClean = await writeLedger(database, async (w) => {
      // Busy children first, then resources: each read is its own snapshot (READ COMMITTED), and a child only ever
      // moves from busy to ended, so one that ends between the two reads is seen by the second with its resources.
      // In the other order it slips between them — no longer busy, its resources not yet counted — and the task was
      // called cancelled with its lock still held (fault-matrix "mid-export" on PostgreSQL under load).
      const busy = await w.tx.workItem.count({ where: { taskId, status: { in: BUSY_STATUSES } } });
      if (await w.tx.resource.count({ where: awaitingCleanup({ taskId }) })) return true;
      if (await w.tx.resourceIntent.count({ where: intentsAwaitingResolution({ taskId }) })) return true; // written ahead, not yet asked about
      if (!busy) await settleTaskIn(w, taskId);
      if (at.endOfPass) await recordSettlementIn(w, taskId);
      return false;
    });
    if (!stillToClean) return;
  }
}

import { CANCEL_DEFAULTS } from "./dispatch-fence";
import type { Database } from "../db/client";
import { stopStep } from "../observability/tracing";
import { LedgerEvent } from "../ledger/events";
import { isTerminalItem, Mechanism, OPEN_REVIEW_STATUSES, WorkItemStatus } from "../ledger/states";
import { writeLedger } from "../ledger/write";
import { isOwnerHosted, OWNER_SETTLE_TIMEOUT_MS, waitForOwners } from "./owner-hosted";
import type { EngineOptions } from "./engine-options";
import { stopChild, STOPPING_BY_ITSELF } from "./steps/4-stop-running";
import { awaitingCleanup, cleanupAndVerify } from "./steps/6-clean-up-and-verify";
import { BUSY_STATUSES } from "./steps/8-settle";
import type { WorkItem } from "../db/generated/sqlite/client.ts";
import { PlanAction, type CancellationPlan } from "./plan";
import { activeCallsOf, atBoundary, planFor } from "./plan-children";
import { reconcileWorkItem } from "./steps/5-reconcile";
import { openReviewsForEffects } from "./steps/7-review";
import { ENGINE_ACTOR } from "./step-log";
import { waitForChildren } from "./wait-for-children";

/**
 * The engine's pass for a Stop of one child (request-child-cancellation.ts), in the design's order at the child's
 * scope: its queued descendants already left dispatch with the boundary; plan (the stop matrix's rules, over the
 * child and its descendants alive at the boundary) → stop each running one through its mechanism (the same
 * `stopChild` as a task's Stop) → let cooperative ones settle → reconcile accepted actions → clean up and verify
 * their resources → review items for their effects → record the scoped Stop's settlement on the child. Siblings
 * and the task are left alone. Safe to repeat (every step is a compare-and-set or a fence): the maintenance pass
 * runs it again for a scoped Stop without its settlement.
 *
 * What it does NOT do: stop the task.
 */
export async function executeChildCancellation(database: Database, workItemId: string, options: EngineOptions): Promise<string[]> {
  const o = {
    verifyDelayMs: Number(process.env.STOPLINE_VERIFY_DELAY_MS ?? 2_000),
    settleTimeoutMs: 5_000,
    ...CANCEL_DEFAULTS,
    ...options,
  };
  const root = await database.prisma.workItem.findUnique({ where: { id: workItemId } });
  if (!root?.stopRequestedAt || root.stopRootId !== root.id || root.stopSettledAt) return [];
  const boundary = root.stopRequestedAt;
  const scope = await database.prisma.workItem.findMany({
    where: { taskId: root.taskId, stopRootId: root.id },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  const ids = scope.map((i) => i.id);
  const alive = scope.filter((i) => !isTerminalItem(i.status) || (i.finishedAt && i.finishedAt >= boundary));
  // The pass that records the plan is the first (as for a task's Stop): it alone logs the steps that change nothing.
  const { plan, recorded: firstRun } = await stopStep({ workItemId: root.id, taskId: root.taskId }, "plan", () =>
    recordChildPlanOnce(database, root, alive, o),
  );
  const actionOf = new Map(plan.steps.map((s) => [s.tool_call_id, s.action]));

  for (const item of scope) {
    if (isTerminalItem(item.status) || item.status === WorkItemStatus.queued) continue;
    await stopStep(
      { workItemId: root.id, taskId: root.taskId },
      "child",
      () => stopChild(database, item, o.registry.get(item.toolName), actionOf.get(item.id) ?? PlanAction.abort, { ...o, firstRun }),
      { "stopline.work_item_id": item.id, "stopline.tool": item.toolName },
    );
  }
  await waitForChildren({ ids }, () => database.prisma.workItem.count({ where: { id: { in: ids }, ...STOPPING_BY_ITSELF } }), o.settleTimeoutMs);
  await waitForOwners(database, { ids }, o.registry, o.ownerSettleTimeoutMs ?? OWNER_SETTLE_TIMEOUT_MS);
  return finishChildCancellation(database, root.id, o);
}

/**
 * The scoped Stop's plan over the child and its descendants alive at its boundary (as a task's Stop plans: the rules,
 * or a configured model's plan once it passed validation), recorded once on the stopped child with its
 * `cancellation.planned` event (scope work_item). A pass that lost the race, or runs again, follows the recorded plan.
 */
async function recordChildPlanOnce(
  database: Database,
  root: WorkItem,
  alive: WorkItem[],
  o: EngineOptions,
): Promise<{ plan: CancellationPlan; recorded: boolean }> {
  if (root.stopPlan) return { plan: root.stopPlan as unknown as CancellationPlan, recorded: false };
  const plan = await planFor(activeCallsOf(alive.map(atBoundary), o.registry), o.planner);
  return writeLedger(database, async (w) => {
    const { count } = await w.tx.workItem.updateMany({
      where: { id: root.id, stopPlannedAt: null },
      data: { stopPlan: plan as never, stopPlannedAt: await w.now() },
    });
    if (!count)
      return {
        plan: (await w.tx.workItem.findUniqueOrThrow({ where: { id: root.id }, select: { stopPlan: true } })).stopPlan as unknown as CancellationPlan,
        recorded: false,
      };
    await w.event({
      taskId: root.taskId,
      workItemId: root.id,
      entityType: "workItem",
      entityId: root.id,
      actor: ENGINE_ACTOR,
      type: LedgerEvent.cancellationPlanned,
      reason: plan.fallbackReason ?? null,
      data: { ...plan, scope: "work_item" },
    });
    return { plan, recorded: true };
  });
}

/**
 * Steps 5–8 at the child's scope (also run again by the maintenance pass for a scoped Stop that settled late).
 * Returns the children of the scope still being stopped (none once its settlement is recorded): the engine runs the
 * pass again when one of them ends, instead of leaving the scoped Stop unsettled until its next maintenance pass.
 */
export async function finishChildCancellation(database: Database, workItemId: string, options: EngineOptions & { verifyDelayMs: number }): Promise<string[]> {
  const root = await database.prisma.workItem.findUniqueOrThrow({ where: { id: workItemId } });
  const task = await database.prisma.task.findUniqueOrThrow({ where: { id: root.taskId } });
  const scope = await database.prisma.workItem.findMany({ where: { taskId: root.taskId, stopRootId: root.id } });
  const ids = scope.map((i) => i.id);
  const unknown = scope.filter(
    (i) =>
      i.status === WorkItemStatus.uncertain ||
      ((i.status === WorkItemStatus.submitted || i.status === WorkItemStatus.cancelling) && i.mechanism !== Mechanism.abortSignal),
  );
  const now = new Date();
  for (const item of unknown)
    if (!isOwnerHosted(item, options.registry, now)) await reconcileWorkItem(database, item, options.registry.get(item.toolName), options.registry, options);
  await stopStep({ workItemId: root.id, taskId: root.taskId }, "verification", () => cleanupAndVerify(database, root.taskId, options, { workItemIds: ids }));
  await openReviewsForEffects(database, root.taskId, task.riskLevel, options.registry, { workItemIds: ids });
  if (await recordChildSettlement(database, root.id, ids)) return [];
  const busy = await database.prisma.workItem.findMany({ where: { id: { in: ids }, status: { in: BUSY_STATUSES } }, select: { id: true } });
  // None busy now: the last one ended between the settlement's check and this read — settle now, or it waits for
  // the maintenance pass (a resource of it still awaiting cleanup: that pass cleans it up first).
  if (!busy.length) await recordChildSettlement(database, root.id, ids);
  return busy.map((b) => b.id);
}

/**
 * The scoped Stop is settled once no child in its scope is still being stopped: `stopSettledAt` on each of them
 * (set once, guarded) and `work_item.stop_settled` on the stopped child, in one transaction. Until then its summary
 * says IN_PROGRESS.
 */
async function recordChildSettlement(database: Database, rootId: string, ids: string[]): Promise<boolean> {
  return writeLedger(database, async (w) => {
    // The scope's rows in id order, as a Stop of one of them locks its task's children (request-child-cancellation.ts):
    // in another order the two deadlock (a repeated Stop of the child while its first pass settles).
    if (w.provider === "postgres") await w.tx.$queryRawUnsafe(`SELECT 1 FROM "WorkItem" WHERE "id" = ANY($1::text[]) ORDER BY "id" FOR UPDATE`, ids);
    const busy = await w.tx.workItem.count({ where: { id: { in: ids }, status: { in: BUSY_STATUSES } } });
    if (busy) return false;
    // a child that ended after cleanup's read: not settled over its resources (the next pass cleans them up)
    if (await w.tx.resource.count({ where: awaitingCleanup({ workItemIds: ids }) })) return false;
    const now = await w.now();
    const { count } = await w.tx.workItem.updateMany({ where: { id: rootId, stopSettledAt: null }, data: { stopSettledAt: now } });
    if (!count) return false;
    await w.tx.workItem.updateMany({ where: { id: { in: ids }, stopSettledAt: null }, data: { stopSettledAt: now } });
    const root = await w.tx.workItem.findUniqueOrThrow({ where: { id: rootId }, select: { taskId: true } });
    const effects = await w.tx.sideEffect.findMany({ where: { workItemId: { in: ids } }, select: { id: true } });
    const open = await w.tx.reviewItem.count({
      where: { status: { in: OPEN_REVIEW_STATUSES }, OR: [{ workItemId: { in: ids } }, { sideEffectId: { in: effects.map((e) => e.id) } }] },
    });
    await w.event({
      taskId: root.taskId,
      workItemId: rootId,
      entityType: "workItem",
      entityId: rootId,
      actor: ENGINE_ACTOR,
      type: LedgerEvent.workItemStopSettled,
      data: { openReviewItems: open },
    });
    return true;
  });
}

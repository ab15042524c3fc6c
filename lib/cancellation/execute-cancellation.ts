import { onEngine, type Database } from "../db/client";
import { stopStep } from "../observability/tracing";
import type { Task, WorkItem } from "../db/generated/sqlite/client.ts";
import { markUncertain } from "../ledger/mark-uncertain";
import { recordVerification } from "../ledger/resources";
import {
  isTerminalItem,
  Mechanism,
  OPEN_REVIEW_STATUSES,
  ResourceState,
  ReviewItemKind,
  TaskStage,
  TERMINAL_ITEM_STATUSES,
  WorkItemStatus,
} from "../ledger/states";
import { cancelQueuedOnPg } from "../ledger/sql/remove-queued";
import { settleQuietlyOnPg, TASK_CANCELLED_REASON } from "../ledger/sql/settle-quietly";
import { cancelQueuedOnSqlite } from "../ledger/sql/remove-queued";
import { LedgerEvent, type DatalessEventType } from "../ledger/events";
import { casUpdate, writeLedger, type Writer } from "../ledger/write";
import type { ToolDefinition } from "../tools/contract";
import type { ToolRegistry } from "../tools/registry";
import { PlanAction, rulePlan, type ActiveToolCall, type CancellationPlan } from "./plan";
import { activeCallsOf, planFor } from "./plan-children";
import { reconcileOrphanReports, reconcileWorkItem } from "./reconcile";
import { readBoundaryFacts, type BoundaryFacts } from "./read-boundary-facts";
import { recordSettlementIn } from "./record-settlement";
import { isOwnerHosted, OWNER_SETTLE_TIMEOUT_MS, waitForOwners } from "./owner-hosted";
import { openReviewItem, openReviewsForEffects } from "./review-items";
import { refFor } from "./call-ref";
import { claimDispatch, recordCancelAnswer } from "./dispatch-fence";
import { recoverChildrenOfGoneProcesses } from "./process-liveness";
import { resolveIntents } from "./resolve-intents";
import { intentsAwaitingResolution } from "../ledger/resource-intents";
import { ENGINE_ACTOR, logStep, sleep, withRetries } from "./steps";
import { markServiceRunning } from "./service-running";

export interface EngineOptions {
  registry: ToolRegistry;
  /** Wait before re-querying a released resource (the seed: 2–5 s). */
  verifyDelayMs?: number;
  /** How long cooperative children get to stop before the engine moves on (they stay watched). */
  settleTimeoutMs?: number;
  cancelAttempts?: number;
  cancelBackoffMs?: number;
  /** A cancel or rollback call that takes longer than this counts as failed (then retried). */
  cancelTimeoutMs?: number;
  /** How often the maintenance pass asks the service again about an uncertain item (default 10 s). */
  reconcileIntervalMs?: number;
  /** An optional model planner; its plan is validated and falls back to the rules (see plan.ts). */
  planner?: (calls: ActiveToolCall[]) => Promise<CancellationPlan>;
  /** How long one pass waits for children whose stop contract runs in their owner's process (owner-hosted.ts; default 30 s). */
  ownerSettleTimeoutMs?: number;
}

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
    cancelAttempts: 3,
    cancelBackoffMs: 200,
    cancelTimeoutMs: 5_000,
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

  // 3. stop in-flight children through their mechanisms
  for (const item of active) {
    if (item.status === WorkItemStatus.queued) continue;
    const tool = o.registry.get(item.toolName);
    const action = actionOf.get(item.id) ?? PlanAction.abort;
    await stopStep({ taskId }, "child", () => stopChild(database, item, tool, action, { ...o, firstRun }), {
      "stopline.work_item_id": item.id,
      "stopline.tool": item.toolName,
      "stopline.action": action,
    });
  }

  // 4. children stopping by themselves get time to report (partial results are classified by their runners)
  const deadline = Date.now() + o.settleTimeoutMs;
  while (Date.now() < deadline && (await database.prisma.workItem.count({ where: { taskId, ...STOPPING_BY_ITSELF } })) > 0) {
    await sleep(25);
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
 * Children the pass waits for (step 4, up to settleTimeoutMs) before it settles: being stopped, and expected to report
 * how they ended shortly — a cooperative one whose AbortSignal fired, or a provider-side one whose service
 * acknowledged the cancel while its worker still holds the lease (its runner reports the stop). Waiting for them keeps
 * the settled summary from calling a step "not stopped yet" a moment before it reports. A cancel that was refused or
 * never answered is not waited for: such a step may run on for long, and the summary says so.
 */
export const STOPPING_BY_ITSELF = {
  status: WorkItemStatus.cancelling,
  OR: [{ mechanism: Mechanism.abortSignal }, { cancelWithdrawnAt: { not: null }, leaseToken: { not: null } }],
};

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
      await stopStep({ taskId }, "reconciliation", () => reconcileWorkItem(database, item, o.registry.get(item.toolName), o.registry), {
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

/**
 * Resources whose cleanup is due: still held (or asked to be released) by a child that ended, or by an uncertain
 * one whose worker is gone. An uncertain child whose worker still holds its lease, or whose service said it still
 * runs (`serviceRunningAt`: a job that runs on after a failed cancel), may still be using what it holds: not yet —
 * cleanupLateSettled takes those once it ends (reconciliation clears the mark when the service says otherwise).
 */
export const awaitingCleanup = (scope: { taskId?: string; workItemIds?: string[] }) => ({
  ...(scope.taskId ? { taskId: scope.taskId } : {}),
  ...(scope.workItemIds ? { workItemId: { in: scope.workItemIds } } : {}),
  state: { in: [ResourceState.held, ResourceState.releaseRequested] },
  workItem: { OR: [{ status: { in: [...TERMINAL_ITEM_STATUSES] } }, { status: WorkItemStatus.uncertain, leaseToken: null, serviceRunningAt: null }] },
});

/**
 * One plan per task, however many engine runs (duplicate Stops, several instances, a takeover after a crash):
 * the guarded write of `cancelPlannedAt` decides; a run that loses it uses the winner's plan.
 */
async function recordPlanOnce(
  database: Database,
  task: { id: string; cancelPlan: unknown },
  items: WorkItem[],
  o: EngineOptions,
): Promise<{ plan: CancellationPlan; recorded: boolean }> {
  const taskId = task.id;
  if (task.cancelPlan) return { plan: task.cancelPlan as CancellationPlan, recorded: false };
  const plan = await planFor(activeCallsOf(items, o.registry), o.planner);
  return writeLedger(database, (w) => recordPlanIn(w, taskId, plan));
}

/** The guarded write of the plan and its event, inside a ledger transaction; a run that lost gets the winner's. */
async function recordPlanIn(w: Writer, taskId: string, plan: CancellationPlan): Promise<{ plan: CancellationPlan; recorded: boolean }> {
  const { count } = await w.tx.task.updateMany({
    where: { id: taskId, cancelPlannedAt: null },
    data: { cancelPlan: plan as never, cancelPlannedAt: await w.now() },
  });
  if (!count) {
    const winner = await w.tx.task.findUniqueOrThrow({ where: { id: taskId }, select: { cancelPlan: true } });
    return { plan: winner.cancelPlan as unknown as CancellationPlan, recorded: false };
  }
  await w.event({
    taskId,
    entityType: "task",
    entityId: taskId,
    actor: ENGINE_ACTOR,
    type: LedgerEvent.cancellationPlanned,
    reason: plan.fallbackReason ?? null,
    data: plan as never,
  });
  return { plan, recorded: true };
}

/**
 * A Stop with nothing in flight: no child is still active (the queued ones are removed from dispatch, any other
 * has ended), no resource is held, no effect committed or of unknown outcome. Steps 3–7 have nothing to act on, so the plan, the
 * task's move to cancelled and its settlement are one transaction — a Stop storm on an idle agent stays cheap.
 * Returns false (nothing written) when there is anything to do; the full pass runs then. "in_one_statement": the
 * PostgreSQL statement settled it, and ended the engine lease with it.
 */
async function settleIfNothingInFlight(
  database: Database,
  facts: BoundaryFacts,
  items: WorkItem[],
  active: WorkItem[],
  o: EngineOptions,
): Promise<false | "in_one_statement" | "in_a_transaction"> {
  const { task } = facts;
  if (active.length || (o.planner && items.length && !task.cancelPlan)) return false;
  if (facts.heldResources || facts.effectsToAccountFor) return false;
  const plan = (task.cancelPlan as CancellationPlan | null) ?? rulePlan(activeCallsOf(items, o.registry));
  // On PostgreSQL one statement: plan, cancelled, settled — each with its event (sql/settle-quietly.ts).
  const inOneStatement = await onEngine(database, {
    postgres: (pg) =>
      settleQuietlyOnPg(pg, {
        taskId: task.id,
        plan,
        planReason: plan.fallbackReason ?? null,
        busyStatuses: BUSY_STATUSES,
        openReviewStatuses: OPEN_REVIEW_STATUSES,
        actor: ENGINE_ACTOR,
      }),
    sqlite: async () => false,
  });
  if (inOneStatement) return "in_one_statement";
  const settled = await writeLedger(database, async (w) => {
    // A child that started meanwhile would have to have been claimed before the boundary: the count in
    // settleTaskIn sees it, and then nothing but the plan is recorded here.
    if (!task.cancelPlan) await recordPlanIn(w, task.id, plan);
    const settled = await settleTaskIn(w, task.id);
    if (settled) await recordSettlementIn(w, task.id);
    return settled;
  });
  return settled ? "in_a_transaction" : false;
}

/** Removes every queued child of the task from dispatch: one statement on the driver, each child with its event. */
export function cancelQueued(database: Database, taskId: string): Promise<number> {
  return onEngine(database, {
    sqlite: (direct) => cancelQueuedOnSqlite(direct, taskId, ENGINE_ACTOR),
    postgres: (pg) => cancelQueuedOnPg(pg, taskId, ENGINE_ACTOR),
  });
}

async function moveItem(database: Database, item: WorkItem, to: string, type: DatalessEventType, reason: string, data: Record<string, unknown> = {}) {
  return writeLedger(database, (w) =>
    casUpdate(w, {
      entity: "workItem",
      id: item.id,
      from: item.status,
      to,
      data,
      event: { taskId: item.taskId, workItemId: item.id, actor: ENGINE_ACTOR, type, reason },
    }),
  );
}

/**
 * Stops one child through its mechanism. Safe to repeat: a later run (a takeover after a crash, the maintenance
 * pass) only does — and records — what is still to do; the first run records every child's step.
 */
export async function stopChild(
  database: Database,
  item: WorkItem,
  tool: ToolDefinition | undefined,
  action: PlanAction,
  o: Required<Pick<EngineOptions, "cancelAttempts" | "cancelBackoffMs" | "cancelTimeoutMs">> & { firstRun: boolean; registry?: ToolRegistry },
) {
  const accepted = item.status === WorkItemStatus.submitted || item.status === WorkItemStatus.uncertain;
  if (action === PlanAction.notify || item.mechanism === Mechanism.none) {
    const moved =
      item.status === WorkItemStatus.running || item.status === WorkItemStatus.submitted
        ? await moveItem(database, item, WorkItemStatus.unrecoverable, LedgerEvent.workItemUnrecoverable, "no way to stop it: watched until it ends")
        : null;
    if (moved || o.firstRun)
      await logStep(database, {
        taskId: item.taskId,
        workItemId: item.id,
        action: "notify",
        success: true,
        detail: `${item.toolName} cannot be stopped; reported UNRECOVERABLE and watched`,
      });
    return;
  }
  if (item.mechanism === Mechanism.abortSignal && accepted) {
    // Accepted by the service and not stoppable from here: reconciliation asks the service (step 5).
    if (o.firstRun)
      await logStep(database, {
        taskId: item.taskId,
        workItemId: item.id,
        action: "reconcile_pending",
        success: true,
        detail: `${item.toolName} was accepted by its service; its outcome is asked for by operation id`,
      });
    return;
  }
  if (item.mechanism === Mechanism.abortSignal) {
    const moved =
      item.status === WorkItemStatus.running
        ? await moveItem(database, item, WorkItemStatus.cancelling, LedgerEvent.workItemCancelling, "AbortSignal sent")
        : null;
    if (moved || o.firstRun)
      await logStep(database, {
        taskId: item.taskId,
        workItemId: item.id,
        action: action === PlanAction.awaitPartial ? "abort_await_partial" : "abort",
        success: true,
        detail: moved ? "AbortSignal fired; waiting for the child to stop" : `already ${item.status}`,
      });
    return;
  }
  // provider_cancel or rollback (or an accepted action): ask the service, then inspect the outcome
  if (item.status === WorkItemStatus.running || item.status === WorkItemStatus.submitted) {
    await moveItem(
      database,
      item,
      WorkItemStatus.cancelling,
      LedgerEvent.workItemCancelling,
      action === PlanAction.rollback ? "rollback requested" : "provider cancellation requested",
    );
  }
  const current = await database.prisma.workItem.findUniqueOrThrow({ where: { id: item.id } });
  if (isTerminalItem(current.status)) return; // it ended meanwhile (reconciled, or its worker reported)
  // Its contract lives in the process that holds its lease (owner-hosted.ts): that process runs cancel and inspect
  // and reports; the engine does not run the same contract a second time through the host.
  if (o.registry && isOwnerHosted(current, o.registry, new Date())) {
    await logStep(database, {
      taskId: item.taskId,
      workItemId: item.id,
      action,
      success: true,
      detail: `${item.toolName} runs in ${current.leaseOwner}: its own stop contract (${action === PlanAction.rollback ? "rollback" : "cancel"}, then inspect) runs there and reports`,
    });
    return;
  }
  const call = action === PlanAction.rollback ? tool?.rollback : tool?.cancel;
  // One cancel/rollback per child, however many engine runs (duplicate Stops, several app instances):
  // the run that records the dispatch makes the call; the others leave it to reconciliation.
  if (tool && call && !(await claimDispatch(database, item, action === PlanAction.rollback ? "rollback" : "provider_cancel"))) return;
  if (!tool || !call) {
    await logStep(database, {
      taskId: item.taskId,
      workItemId: item.id,
      action,
      success: false,
      detail: tool
        ? `${item.toolName} has no ${action === PlanAction.rollback ? "rollback" : "cancel"}(); reconciling instead`
        : `tool ${item.toolName} is not registered in this process, and no process that runs it answers`,
    });
    return;
  }
  const ref = await refFor(database, current);
  const result = await withRetries(() => call.call(tool, ref), o.cancelAttempts, o.cancelBackoffMs, o.cancelTimeoutMs);
  await recordCancelAnswer(database, item, result.ok);
  if (result.ok) {
    await logStep(database, {
      taskId: item.taskId,
      workItemId: item.id,
      action: action === PlanAction.rollback ? "rollback" : "provider_cancel",
      success: true,
      detail: "acknowledged; an acknowledgement is not proof — inspecting",
    });
    return;
  }
  await logStep(database, {
    taskId: item.taskId,
    workItemId: item.id,
    action: action === PlanAction.rollback ? "rollback" : "provider_cancel",
    success: false,
    detail: `failed after ${result.attempts} attempts: ${result.error.message}`,
  });
  const latest = await database.prisma.workItem.findUniqueOrThrow({ where: { id: item.id } });
  if (!isTerminalItem(latest.status) && latest.status !== WorkItemStatus.uncertain) {
    await markUncertain(database, {
      workItemId: item.id,
      from: latest.status,
      reason: `the cancellation endpoint did not answer after ${result.attempts} attempts: ${result.error.message}`,
      actor: ENGINE_ACTOR,
      keepLease: true,
    }).catch(() => {});
  }
  const task = await database.prisma.task.findUniqueOrThrow({ where: { id: item.taskId } });
  await openReviewItem(database, {
    taskId: item.taskId,
    workItemId: item.id,
    kind: ReviewItemKind.resolveUncertain,
    risk: tool.risk === "high" ? "high" : task.riskLevel,
    subject: `Could not cancel ${item.toolName} (${item.correlationId}): the cancellation endpoint stayed unavailable (${result.error.message}). Its outcome is uncertain.`,
  });
}

/** Releases what the task's settled children still hold, then verifies: re-query after a delay, retry once, else ORPHANED. */
export async function cleanupAndVerify(
  database: Database,
  taskId: string,
  o: EngineOptions & { verifyDelayMs: number },
  only?: { workItemIds: string[] },
  waitForRunningMs = o.settleTimeoutMs ?? 5_000,
) {
  // Written ahead: what an ended call may hold but never named (its answer was lost) is asked of its service first,
  // so that the cleanup below sees it by its concrete handle (resolve-intents.ts).
  await resolveIntents(database, o.registry, { taskId, workItemIds: only?.workItemIds }, o);
  const settled = await database.prisma.resource.findMany({
    where: awaitingCleanup({ taskId, workItemIds: only?.workItemIds }),
    include: { workItem: { select: { status: true, toolName: true, leaseToken: true } } },
  });
  if (!settled.length) return;
  const task = await database.prisma.task.findUniqueOrThrow({ where: { id: taskId } });
  const runningAtService = await waitForCallsRunningAtService(database, settled, o, waitForRunningMs);
  for (const r of settled) {
    if (runningAtService.has(r.workItemId)) continue; // held by running work: not cleaned up under it, not orphaned
    const tool = o.registry.get(r.workItem.toolName);
    const ref = { id: r.id, workItemId: r.workItemId, type: r.type, handle: r.handle };
    if (!tool?.cleanup || !tool.verifyReleased) {
      await recordVerification(database, {
        resourceId: r.id,
        to: ResourceState.orphaned,
        actor: ENGINE_ACTOR,
        reason: `no way to release or verify ${r.type} ${r.handle}`,
        attempt: 0,
      });
      await openReviewItem(database, {
        taskId,
        resourceId: r.id,
        workItemId: r.workItemId,
        kind: ReviewItemKind.orphanedResource,
        risk: tool?.risk ?? task.riskLevel,
        subject: `${r.type} ${r.handle} of ${r.workItem.toolName} cannot be released or verified by Stopline`,
      });
      continue;
    }
    let released = false;
    let attempt = 0;
    while (attempt < 2 && !released) {
      attempt++;
      const cleaned = await withRetries(() => tool.cleanup!(ref), 1, 0);
      await logStep(database, {
        taskId,
        workItemId: r.workItemId,
        action: "cleanup",
        success: cleaned.ok,
        detail: `${r.type} ${r.handle}, attempt ${attempt}${cleaned.ok ? "" : `: ${cleaned.error.message}`}`,
      });
      await sleep(o.verifyDelayMs);
      const verified = await withRetries(() => tool.verifyReleased!(ref), 1, 0);
      released = verified.ok && verified.value === true;
      await logStep(database, {
        taskId,
        workItemId: r.workItemId,
        action: "verify_release",
        success: released,
        detail: `${r.type} ${r.handle}, attempt ${attempt}: ${released ? "released" : "still held"}`,
      });
    }
    if (released) {
      await recordVerification(database, {
        resourceId: r.id,
        to: ResourceState.released,
        actor: ENGINE_ACTOR,
        reason: "verified released by a re-query",
        attempt,
      });
    } else {
      await recordVerification(database, {
        resourceId: r.id,
        to: ResourceState.orphaned,
        actor: ENGINE_ACTOR,
        reason: "still held after cleanup and one retry",
        attempt,
      });
      await openReviewItem(database, {
        taskId,
        resourceId: r.id,
        workItemId: r.workItemId,
        kind: ReviewItemKind.orphanedResource,
        risk: tool.risk === "high" ? "high" : task.riskLevel,
        subject: `${r.type} ${r.handle} of ${r.workItem.toolName} is still held after cleanup and one retry`,
      });
    }
  }
}

/**
 * Waits (bounded by settleTimeoutMs, the reason stated in the task's steps) while the service reports a holder's call
 * still running — asked through inspect(). Cleaning up under a running call fails ("still running; cancel it first")
 * and recorded ORPHANED what the service released a moment later when the call ended (random conformance: reports
 * cancelUnavailable, PostgreSQL seed 2027 #1, #93, #158). A call still running after the wait is marked so
 * (`serviceRunningAt`, markServiceRunning): what it holds is reported "still held by a step that is still running",
 * never "could not be released", and is cleaned up and verified once the service says it ended. Returns the holders
 * left running.
 */
async function waitForCallsRunningAtService(
  database: Database,
  resources: { workItemId: string; workItem: { status: string } }[],
  o: EngineOptions,
  waitMs: number,
): Promise<Set<string>> {
  const ids = [...new Set(resources.filter((r) => !isTerminalItem(r.workItem.status) || r.workItem.status === WorkItemStatus.failed).map((r) => r.workItemId))];
  const deadline = Date.now() + waitMs;
  const stillRunning = new Set<string>();
  for (const id of ids) {
    const item = await database.prisma.workItem.findUniqueOrThrow({ where: { id } });
    const tool = o.registry.get(item.toolName);
    if (!tool?.inspect) continue;
    const ref = await refFor(database, item);
    for (let first = true; ; first = false) {
      const asked = await withRetries(() => tool.inspect!(ref), 1, 0, o.cancelTimeoutMs ?? 5_000);
      const running = asked.ok && asked.value.status === "running";
      if (running && Date.now() >= deadline) {
        if (await markServiceRunning(database, item, true)) stillRunning.add(id);
        break;
      }
      if (!running) break;
      if (first && waitMs > 0)
        await logStep(database, {
          taskId: item.taskId,
          workItemId: id,
          action: "verify_release",
          success: false,
          detail: "waiting: the call is still running at its service, so what it holds cannot be released yet",
        });
      await sleep(100);
    }
  }
  return stillRunning;
}

/** cancel_requested → cancelled once no child is still being stopped (uncertain ones stay under reconciliation). */
export async function settleTask(database: Database, taskId: string) {
  return writeLedger(database, (w) => settleTaskIn(w, taskId));
}

/** Children still being stopped: while any is, the task stays cancel_requested. */
export const BUSY_STATUSES: string[] = [
  WorkItemStatus.queued,
  WorkItemStatus.running,
  WorkItemStatus.submitted,
  WorkItemStatus.cancelling,
  WorkItemStatus.unrecoverable,
];

async function settleTaskIn(w: Writer, taskId: string): Promise<boolean> {
  const busy = await w.tx.workItem.count({ where: { taskId, status: { in: BUSY_STATUSES } } });
  if (busy) return false;
  return !!(await casUpdate(w, {
    entity: "task",
    id: taskId,
    from: TaskStage.cancelRequested,
    to: TaskStage.cancelled,
    event: { taskId, actor: ENGINE_ACTOR, type: LedgerEvent.taskCancelled, reason: TASK_CANCELLED_REASON },
  }));
}

/**
 * An orphaned resource is asked about again (the service may have released it late, or a person fixed it):
 * verified released → `released`. Nothing is cleaned up here; it only records what a re-query confirms.
 */
export async function reverifyOrphans(database: Database, registry: ToolRegistry) {
  const orphans = await database.prisma.resource.findMany({
    where: { state: ResourceState.orphaned },
    include: { workItem: { select: { toolName: true } } },
    take: 50,
  });
  for (const r of orphans) {
    const tool = registry.get(r.workItem.toolName);
    if (!tool?.verifyReleased) continue;
    const verified = await withRetries(() => tool.verifyReleased!({ id: r.id, workItemId: r.workItemId, type: r.type, handle: r.handle }), 1, 0);
    if (verified.ok && verified.value) {
      await recordVerification(database, {
        resourceId: r.id,
        to: ResourceState.released,
        actor: ENGINE_ACTOR,
        reason: "a later re-query found it released",
        attempt: r.attempts + 1,
      });
    }
  }
}

/** Resources of stopped tasks whose children ended after the task settled: cleaned up and verified now. */
export async function cleanupLateSettled(database: Database, options: EngineOptions & { verifyDelayMs: number }) {
  const pending = await database.prisma.resource.findMany({
    where: { ...awaitingCleanup({}), task: { cancelRequestedAt: { not: null } } },
    select: { taskId: true },
    distinct: ["taskId"],
    take: 20,
  });
  // (no waiting here: the maintenance pass serves every task — a late-settled child is cleaned up as before)
  for (const { taskId } of pending) await cleanupAndVerify(database, taskId, options, undefined, 0);
}

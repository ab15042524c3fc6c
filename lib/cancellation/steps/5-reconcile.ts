import type { Database } from "../../db/client";
import type { WorkItem } from "../../db/generated/sqlite/client.ts";
import {
  isTerminalItem,
  Mechanism,
  ResourceState,
  ReviewItemKind,
  ReviewItemStatus,
  SideEffectOutcome,
  TERMINAL_ITEM_STATUSES as TERMINAL,
  WorkItemStatus,
} from "../../ledger/states";
import { lockWorkItem } from "../../ledger/lease";
import { casUpdate, writeLedger } from "../../ledger/write";
import type { ToolDefinition } from "../../tools/contract";
import type { ToolRegistry } from "../../tools/registry";
import { refFor, refOf } from "../call-ref";
import { CANCEL_DEFAULTS, cancelInFlightMs, claimDispatch, noteCancelInFlight, recordCancelAnswer, type CancelSettings } from "../dispatch-fence";
import { recordVerification } from "../../ledger/resources";
import { reconcileSideEffects } from "../../ledger/reconcile-side-effects";
import { openReviewItem, openReviewItemIn, openReviewsForEffects } from "./7-review";
import { ENGINE_ACTOR, answerWithin, logStep } from "../step-log";
import { markServiceRunning } from "../service-running";
import { LedgerEvent } from "../../ledger/events";

/**
 * Invariant 5: asks the authoritative service what happened to an accepted action — by its operation id /
 * idempotency key, never by re-submitting — and records the answer. An unknown answer keeps the item
 * `uncertain` (with its deadline) and puts it in front of a person.
 */
export async function reconcileWorkItem(
  database: Database,
  item: WorkItem,
  tool: ToolDefinition | undefined,
  registry?: ToolRegistry,
  cancelSettings: CancelSettings = {},
): Promise<string> {
  const to = await settleByInspect(database, item, tool, cancelSettings);
  // An effect found committed after a Stop needs a person (compensation or notice), even if the engine's
  // own run already finished.
  if (to === WorkItemStatus.completed && registry) {
    const task = await database.prisma.task.findUniqueOrThrow({ where: { id: item.taskId } });
    if (task.cancelRequestedAt) await openReviewsForEffects(database, task.id, task.riskLevel, registry);
    // A step stopped alone (a scoped Stop): its own effects, not its siblings' (the task goes on).
    else if (item.stopRequestedAt) await openReviewsForEffects(database, task.id, task.riskLevel, registry, { workItemIds: [item.id] });
  }
  return to;
}

/** A holder with a live lease that passed its checkpoint could still submit the action. */
async function mayStillSend(database: Database, item: WorkItem): Promise<boolean> {
  const current = await database.prisma.workItem.findUniqueOrThrow({
    where: { id: item.id },
    select: { leaseToken: true, leaseExpiresAt: true, checkpointPassedAt: true },
  });
  if (!current.leaseToken || !current.leaseExpiresAt || current.leaseExpiresAt.getTime() <= Date.now()) return false;
  return current.checkpointPassedAt !== null;
}

async function settleByInspect(database: Database, item: WorkItem, tool: ToolDefinition | undefined, cancelSettings: CancelSettings): Promise<string> {
  if (isTerminalItem(item.status)) return item.status;
  if (!tool?.inspect) return cannotBeEstablished(database, item, tool);
  const ref = await refFor(database, item);
  // Every call to the service is bounded by the run's cancel timeout: one that hangs is as unavailable as one that
  // refuses — it must not hold the Stop for ever, nor outlive the dispatch fence's window (cancelInFlightMs).
  const timeoutMs = cancelSettings.cancelTimeoutMs ?? CANCEL_DEFAULTS.cancelTimeoutMs;
  const ask = async (): Promise<Awaited<ReturnType<NonNullable<ToolDefinition["inspect"]>>>> => {
    const asked = await answerWithin(() => tool.inspect!(ref), timeoutMs);
    return asked.ok ? asked.value : { status: "unknown", reason: `inspect failed: ${asked.error.message}` };
  };
  let outcome = await ask();
  const withdrawn = async () =>
    (await database.prisma.workItem.findUniqueOrThrow({ where: { id: item.id }, select: { cancelWithdrawnAt: true } })).cancelWithdrawnAt !== null;
  if (outcome.status === "not_committed" && tool.mechanism === "provider_cancel" && tool.cancel && !isTerminalItem(item.status) && !(await withdrawn())) {
    // "Not found" may only mean "not yet": a request still in flight can land after the answer. Withdraw it
    // first (the tool's cancel never undoes a committed effect), then ask again: that answer is final.
    // Not sent twice: if the engine's dispatch already withdrew it, its record above says so; if another run
    // (a duplicate Stop, a second app instance) dispatched a cancel that has not been answered yet, that
    // run's acknowledgement settles it — ask again later instead of cancelling a second time.
    // The fence decides who sends it; losing it means another run's cancel is in flight (or was acknowledged
    // meanwhile): its answer settles this item, so ask again later rather than cancel a second time.
    if ((await cancelInFlight(database, item.id, cancelSettings)) || !(await claimDispatch(database, item, "provider_cancel", cancelSettings))) {
      await noteCancelInFlight(database, item, { action: "reconcile", then: "asked again later" }, cancelSettings);
      return item.status;
    }
    const cancelled = await answerWithin(() => tool.cancel!(ref), timeoutMs);
    await recordCancelAnswer(database, item, cancelled.ok);
    outcome = cancelled.ok
      ? await ask()
      : { status: "unknown", reason: `could not withdraw the request before concluding it never happened: ${cancelled.error.message}` };
  }
  await logStep(database, {
    taskId: item.taskId,
    workItemId: item.id,
    action: "reconcile",
    success: outcome.status !== "unknown",
    detail: `the service says: ${outcome.status}${"reason" in outcome ? ` (${outcome.reason})` : ""}`,
    data: { operationId: item.operationId },
  });

  // Still in flight: watched, asked again later. Uncertain with no worker: what it holds stays held by the running
  // call (not cleaned up under it); any other answer clears that mark, and its cleanup follows (execute-cancellation).
  // ("unknown" — the service could not be asked — says nothing either way: the mark stays.)
  if (outcome.status !== "unknown") await markServiceRunning(database, item, outcome.status === "running");
  if (outcome.status === "running") return item.status;
  if (outcome.status === "not_committed" && (await mayStillSend(database, item))) {
    // The service has not seen it YET, but a live worker past its checkpoint can still send it: not final.
    await logStep(database, {
      taskId: item.taskId,
      workItemId: item.id,
      action: "reconcile",
      success: false,
      detail: "not committed so far, but its worker still holds a live lease past the checkpoint: asked again later",
    });
    return item.status;
  }
  if (outcome.status === "unknown") {
    if (item.status !== WorkItemStatus.uncertain) {
      const { markUncertain } = await import("../../ledger/mark-uncertain");
      await markUncertain(database, { workItemId: item.id, from: item.status, reason: outcome.reason, actor: ENGINE_ACTOR }).catch(() => {});
    }
    const task = await database.prisma.task.findUniqueOrThrow({ where: { id: item.taskId } });
    await openReviewItem(database, {
      taskId: item.taskId,
      workItemId: item.id,
      kind: ReviewItemKind.resolveUncertain,
      risk: tool.risk === "high" ? "high" : task.riskLevel,
      subject: `The outcome of ${item.toolName} (${item.correlationId}) is not known: ${outcome.reason}`,
    });
    return WorkItemStatus.uncertain;
  }

  // The call has ended at its service: what was recorded ORPHANED while it ran on (cleaned up under it) is asked about
  // again first, so a summary that shows the call ended never still shows what the service released as "not released".
  if ((outcome.status === "committed" || outcome.status === "not_committed") && tool.verifyReleased) {
    for (const r of await database.prisma.resource.findMany({ where: { workItemId: item.id, state: ResourceState.orphaned } })) {
      const asked = await answerWithin(() => tool.verifyReleased!({ id: r.id, workItemId: r.workItemId, type: r.type, handle: r.handle }), timeoutMs);
      if (asked.ok && asked.value)
        await recordVerification(database, {
          resourceId: r.id,
          to: ResourceState.released,
          actor: ENGINE_ACTOR,
          reason: "the call ended at its service; a re-query found it released",
          attempt: r.attempts + 1,
        }).catch(() => {});
    }
  }
  // committed or not_committed: read both shapes' optional fields through one view
  const facts = outcome as {
    status: "committed" | "not_committed";
    partialResult?: unknown;
    partialComplete?: boolean;
    result?: unknown;
    externalRecordId?: string | null;
    externalVersion?: string | null;
    evidence?: Record<string, unknown>;
    description?: string;
  };
  return writeLedger(database, async (w) => {
    await lockWorkItem(w, item.id); // a late submission report of this item waits, or is seen below
    const current = await w.tx.workItem.findUniqueOrThrow({ where: { id: item.id } });
    if (isTerminalItem(current.status)) return current.status;
    const now = await w.now();
    const committed = facts.status === "committed";
    // Stopped: the task's boundary, or a Stop of this step alone (scoped Stop, an incident's kill switch — issue 13).
    const stopped = !!(await w.tx.task.findUniqueOrThrow({ where: { id: current.taskId } })).cancelRequestedAt || current.stopRequestedAt !== null;
    const to = committed
      ? WorkItemStatus.completed
      : !stopped
        ? WorkItemStatus.failed // not stopped: the action simply did not happen; the agent may schedule it again
        : facts.partialResult !== undefined && facts.partialResult !== null
          ? facts.partialComplete
            ? WorkItemStatus.partial
            : WorkItemStatus.cancelledIncomplete
          : WorkItemStatus.cancelled;
    await casUpdate(w, {
      entity: "workItem",
      id: current.id,
      from: current.status,
      to,
      data: {
        finishedAt: now,
        leaseToken: null,
        leaseOwner: null,
        leaseExpiresAt: null,
        ...(!stopped && !committed ? { error: "the service reports the action did not take effect" } : {}),
        ...(committed
          ? { result: (facts.result ?? null) as never }
          : { partialResult: (facts.partialResult ?? undefined) as never, partialComplete: facts.partialComplete ?? null }),
      },
      event: {
        taskId: current.taskId,
        workItemId: current.id,
        actor: ENGINE_ACTOR,
        type: LedgerEvent.workItemReconciled,
        reason: committed ? "the service confirmed the action took effect" : "the service confirmed the action did not take effect",
      },
    });
    const effects = await reconcileSideEffects(w, current, facts, ENGINE_ACTOR);
    if (committed && !effects.length && current.commitsEffect) {
      // Accepted but never recorded as submitted (the worker died between the call and ctx.submitted()).
      const created = await w.tx.sideEffect.create({
        data: {
          taskId: current.taskId,
          workItemId: current.id,
          operationId: current.operationId ?? current.idempotencyKey,
          outcome: SideEffectOutcome.committed,
          externalRecordId: facts.externalRecordId ?? null,
          externalVersion: facts.externalVersion ?? null,
          description: facts.description ?? null,
          evidence: (facts.evidence ?? undefined) as never,
          reversible: !!tool.compensate,
        },
      });
      await w.event({
        taskId: current.taskId,
        workItemId: current.id,
        entityType: "sideEffect",
        entityId: created.id,
        actor: ENGINE_ACTOR,
        type: LedgerEvent.sideEffectReconciled,
        toState: created.outcome,
        reason: "found by inspect",
      });
    }
    return to;
  });
}

/**
 * Nothing can ask the service about this child (its tool has no inspect(), or is not registered here). Say so
 * rather than pretend to check: a call that commits nothing and is stopped by its AbortSignal is discarded (it
 * changed nothing anyone could check); anything else stays `uncertain` with NO reconcile deadline (nothing will
 * check it) and a review item: a person establishes what happened. Done once; later passes skip it.
 */
async function cannotBeEstablished(database: Database, item: WorkItem, tool: ToolDefinition | undefined): Promise<string> {
  const why = tool ? `${item.toolName} has no inspect()` : `tool ${item.toolName} is not registered in this process`;
  const commitsNothing = !item.commitsEffect && item.operationId === null && item.mechanism === Mechanism.abortSignal;
  if (item.status === WorkItemStatus.uncertain && commitsNothing) {
    return writeLedger(database, async (w) => {
      const task = await w.tx.task.findUniqueOrThrow({ where: { id: item.taskId }, select: { cancelRequestedAt: true } });
      const { stopRequestedAt } = await w.tx.workItem.findUniqueOrThrow({ where: { id: item.id }, select: { stopRequestedAt: true } });
      const to = task.cancelRequestedAt || stopRequestedAt ? WorkItemStatus.cancelledIncomplete : WorkItemStatus.failed;
      const moved = await casUpdate(w, {
        entity: "workItem",
        id: item.id,
        from: WorkItemStatus.uncertain,
        to,
        guard: { leaseToken: null },
        data: { finishedAt: await w.now(), reconcileDeadline: null, ...(to === WorkItemStatus.failed ? { error: `${why}; it committed nothing` } : {}) },
        event: {
          taskId: item.taskId,
          workItemId: item.id,
          actor: ENGINE_ACTOR,
          type: LedgerEvent.workItemReconciled,
          reason: `${why}, and it commits nothing: discarded`,
        },
      });
      return moved ? to : item.status;
    });
  }
  if (item.status !== WorkItemStatus.uncertain || item.reconcileDeadline === null) return item.status;
  // One transaction: nobody ever reads "nothing will check it" without the person who is asked to.
  const task = await database.prisma.task.findUniqueOrThrow({ where: { id: item.taskId }, select: { riskLevel: true } });
  await writeLedger(database, async (w) => {
    const { count } = await w.tx.workItem.updateMany({
      where: { id: item.id, status: WorkItemStatus.uncertain, reconcileDeadline: { not: null } },
      data: { reconcileDeadline: null },
    });
    if (!count) return;
    await w.event({
      taskId: item.taskId,
      workItemId: item.id,
      entityType: "workItem",
      entityId: item.id,
      actor: ENGINE_ACTOR,
      type: LedgerEvent.cancellationStep,
      reason: `${why}: its outcome cannot be established by Stopline; a person decides`,
      data: { action: "reconcile", success: false },
    });
    await openReviewItemIn(w, {
      taskId: item.taskId,
      workItemId: item.id,
      kind: ReviewItemKind.resolveUncertain,
      risk: tool?.risk === "high" ? "high" : task.riskLevel,
      subject: `Nobody can check whether ${item.toolName} (${item.correlationId}) took effect: ${why}. Establish what happened.`,
    });
  }).catch((error: unknown) => {
    if ((error as { code?: string })?.code !== "P2002") throw error; // another engine run asked the same question first (and cleared the deadline with it)
  });
  return item.status;
}

/**
 * Effects of unknown outcome on children that already finished (a late report from a worker whose lease
 * had moved on): asked about by themselves, whatever their child's status says.
 */
export async function reconcileOrphanReports(database: Database, registry: ToolRegistry, where: { taskId?: string } = {}) {
  const effects = await database.prisma.sideEffect.findMany({
    where: { outcome: SideEffectOutcome.unknown, ...(where.taskId ? { taskId: where.taskId } : {}), workItem: { status: { in: TERMINAL } } },
    include: { workItem: true },
    take: 50,
  });
  for (const effect of effects) {
    const tool = registry.get(effect.workItem.toolName);
    if (!tool?.inspect) continue;
    const asked = await answerWithin(() => tool.inspect!(refOf(effect.workItem, effect)), CANCEL_DEFAULTS.cancelTimeoutMs);
    const outcome: Awaited<ReturnType<NonNullable<ToolDefinition["inspect"]>>> = asked.ok ? asked.value : { status: "unknown", reason: asked.error.message };
    await logStep(database, {
      taskId: effect.taskId,
      workItemId: effect.workItemId,
      action: "reconcile_effect",
      success: outcome.status === "committed" || outcome.status === "not_committed",
      detail: `a late report (${effect.operationId}): the service says ${outcome.status}`,
    });
    if (outcome.status !== "committed" && outcome.status !== "not_committed") continue;
    const committed = outcome.status === "committed";
    await writeLedger(database, (w) =>
      reconcileSideEffects(w, { id: effect.workItemId, taskId: effect.taskId }, outcome, ENGINE_ACTOR, {
        only: effect.id,
        reason: `inspect of a late report: ${outcome.status}`,
      }),
    );
    if (committed) {
      const task = await database.prisma.task.findUniqueOrThrow({ where: { id: effect.taskId } });
      if (task.cancelRequestedAt) await openReviewsForEffects(database, task.id, task.riskLevel, registry);
    }
  }
}

/**
 * A question "is it committed?" whose answer became known by another path (the worker reported, or a race
 * between the question and the answer) is closed with the ledger's answer.
 */
export async function resolveAnsweredUncertainties(database: Database) {
  const stale = await database.prisma.reviewItem.findMany({
    where: {
      kind: ReviewItemKind.resolveUncertain,
      status: { in: [ReviewItemStatus.open, ReviewItemStatus.escalated] },
      workItem: { status: { in: TERMINAL } },
    },
    include: { workItem: { select: { status: true } } },
    take: 50,
  });
  for (const r of stale) {
    await writeLedger(database, async (w) =>
      casUpdate(w, {
        entity: "reviewItem",
        id: r.id,
        from: r.status,
        to: ReviewItemStatus.resolved,
        data: { decidedBy: ENGINE_ACTOR, decidedAt: await w.now(), resolution: `established meanwhile: the work item ended ${r.workItem!.status}` },
        event: { taskId: r.taskId, workItemId: r.workItemId, actor: ENGINE_ACTOR, type: LedgerEvent.reviewItemResolved, reason: "the outcome became known" },
      }),
    );
  }
}

/** A cancel/rollback was dispatched for this item and has not answered (success or failure) yet. */
async function cancelInFlight(database: Database, workItemId: string, settings: CancelSettings): Promise<boolean> {
  const item = await database.prisma.workItem.findUniqueOrThrow({ where: { id: workItemId }, select: { cancelDispatchedAt: true, cancelAnsweredAt: true } });
  return !!item.cancelDispatchedAt && !item.cancelAnsweredAt && Date.now() - item.cancelDispatchedAt.getTime() <= cancelInFlightMs(settings);
}

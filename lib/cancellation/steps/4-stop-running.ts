import { onEngine, type Database } from "../../db/client";
import { Coalescer, coalescerPerOwner, oncePerStatement } from "../../db/coalesce";
import type { PgDirect } from "../../db/pg";
import type { WorkItem } from "../../db/generated/sqlite/client.ts";
import { markUncertain } from "../../ledger/mark-uncertain";
import { isTerminalItem, Mechanism, ReviewItemKind, WorkItemStatus } from "../../ledger/states";
import { LedgerEvent, type DatalessEventType } from "../../ledger/events";
import { casUpdate, writeLedger } from "../../ledger/write";
import type { ToolDefinition } from "../../tools/contract";
import type { ToolRegistry } from "../../tools/registry";
import { PlanAction } from "../plan";
import { isOwnerHosted } from "../owner-hosted";
import { openReviewItem } from "./7-review";
import { refFor } from "../call-ref";
import { claimDispatch, recordCancelAnswer } from "../dispatch-fence";
import { ENGINE_ACTOR, logStep, withRetries } from "../step-log";
import type { EngineOptions } from "../engine-options";
import { stepEvent } from "../../observability/tracing";
import { abortStepDetail, abortRunningOnPg, abortRunningOnSqlite, type AbortRequest } from "../../ledger/sql/abort-running";

// Step 4: each child in flight is stopped through its mechanism; cooperative ones get time to report.

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

/** STOPPING_BY_ITSELF in SQL, for the children of row alias `w` (the same rule: a test counts the same rows both ways). */
export const stoppingByItselfSql = (w: string) =>
  `${w}."status" = '${WorkItemStatus.cancelling}' AND (${w}."mechanism" = '${Mechanism.abortSignal}' OR (${w}."cancelWithdrawnAt" IS NOT NULL AND ${w}."leaseToken" IS NOT NULL))`;

/**
 * One coalescer per pool: the passes waiting for their tasks' children (a mass Stop has hundreds, each reading again at
 * every report of its task) count in one statement for all the tasks asked about meanwhile.
 */
const stoppingByItselfOf = coalescerPerOwner(
  (pg: PgDirect) =>
    new Coalescer(async (taskIds: string[]) => {
      const rows = await pg.query<{ taskId: string; n: number }>(
        `SELECT w."taskId", count(*)::int AS n FROM "WorkItem" w WHERE w."taskId" = ANY($1::text[]) AND ${stoppingByItselfSql("w")} GROUP BY w."taskId"`,
        [taskIds],
        "stopline_stopping_by_itself",
      );
      const counts = new Map(taskIds.map((id) => [id, 0]));
      for (const row of rows) counts.set(row.taskId, row.n);
      return counts;
    }),
);

/** How many of the task's children are stopping by themselves (STOPPING_BY_ITSELF): what step 4 waits for. */
export function countStoppingByItself(database: Database, taskId: string): Promise<number> {
  return onEngine(database, {
    postgres: async (pg) => (await stoppingByItselfOf(pg).load(taskId)) ?? 0,
    sqlite: () => database.prisma.workItem.count({ where: { taskId, ...STOPPING_BY_ITSELF } }),
  });
}

/** A child this step stops by firing its AbortSignal (not one its service already accepted: that one is asked about). */
export function stopsByAbortSignal(item: Pick<WorkItem, "mechanism" | "status">, action: PlanAction): boolean {
  const accepted = item.status === WorkItemStatus.submitted || item.status === WorkItemStatus.uncertain;
  return action !== PlanAction.notify && item.mechanism === Mechanism.abortSignal && !accepted;
}

/**
 * One coalescer per pool: the passes that stop their children by AbortSignal while one such statement is in flight
 * (a mass Stop, a busy hour) stop them together, in one statement — each child its own guarded move with its events.
 * Two passes of one task in a batch go in successive statements.
 */
const abortsOf = coalescerPerOwner(
  (pg: PgDirect) => new Coalescer((asked: AbortRequest[]) => oncePerStatement(asked, (once) => abortRunningOnPg(pg, once, ENGINE_ACTOR))),
);

/**
 * Stops children by their AbortSignal, all of one task at once (one statement, on PostgreSQL shared with other tasks'
 * passes; lib/ledger/sql/abort-running.ts): a running one moves to `cancelling` — its worker's signal fires on that
 * event — and each one's step is logged (a repeated run logs only what it moved). Returns, per child, the step it
 * logged (null: none), for its span.
 */
export async function abortChildren(database: Database, taskId: string, children: { item: WorkItem; action: PlanAction }[], firstRun: boolean) {
  if (!children.length) return [];
  const targets = children.map(({ item, action }) => ({
    id: item.id,
    action: action === PlanAction.awaitPartial ? "abort_await_partial" : "abort",
    seenStatus: item.status,
  }));
  const outcomes = await onEngine(database, {
    sqlite: (direct) => abortRunningOnSqlite(direct, taskId, targets, ENGINE_ACTOR, firstRun),
    postgres: async (pg) => (await abortsOf(pg).load({ taskId, targets, firstRun }))!,
  });
  return outcomes.map((o, i) =>
    o.logged ? { taskId, workItemId: o.id, action: targets[i].action, success: true, detail: abortStepDetail(o.moved, targets[i].seenStatus) } : null,
  );
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
  if (stopsByAbortSignal(item, action)) {
    const [step] = await abortChildren(database, item.taskId, [{ item, action }], o.firstRun);
    if (step) stepEvent(step);
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
  if (tool && call && !(await claimDispatch(database, item, action === PlanAction.rollback ? "rollback" : "provider_cancel", o))) return;
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

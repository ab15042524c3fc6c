import { onEngine, type Database } from "../db/client";
import type { PgDirect } from "../db/pg";
import { AppError, ErrorCode } from "../errors";
import { refusalToProceed } from "./guards";
import { loadLeasedItem, rejectStaleLease, staleLeaseError, type LeaseHolder } from "./lease";
import { checkpointOnPg } from "./sql/checkpoint";
import { insertEventOnPg } from "./sql/pg";
import { WorkItemStatus } from "./states";
import type { CheckpointVersions } from "./events";
import { writeLedger, type EventInput } from "./write";
import { LedgerEvent } from "./events";

export interface CheckpointInput extends LeaseHolder {
  /** Optional: the versions the running code believes it holds; they must match what the item was prepared under. */
  intentVersion?: number;
  proposalVersion?: number | null;
  actor: string;
}

type CheckedItem = { id: string; taskId: string; preparedIntentVersion: number; proposalVersion: number | null; stopRequestedAt?: Date | null };
type CheckedTask = { id: string; stage: string; intentVersion: number; proposalVersion: number; cancelRequestedAt: Date | null };

/** Why this checkpoint must not pass (pure; both write paths), with the versions its record shows. */
function judge(item: CheckedItem, task: CheckedTask, input: CheckpointInput) {
  const claimed = { intentVersion: input.intentVersion ?? item.preparedIntentVersion, proposalVersion: input.proposalVersion ?? item.proposalVersion };
  const mismatch =
    claimed.intentVersion !== item.preparedIntentVersion || (claimed.proposalVersion ?? null) !== (item.proposalVersion ?? null)
      ? new AppError(ErrorCode.staleIntent, "the versions presented are not the ones this work item was prepared under", {
          presented: claimed,
          prepared: { intentVersion: item.preparedIntentVersion, proposalVersion: item.proposalVersion },
        })
      : null;
  // A Stop of this child alone (or of an ancestor) is its boundary at the child's scope: no commitment after it.
  const stopped = item.stopRequestedAt
    ? new AppError(ErrorCode.cancelRequested, `this step was stopped at ${item.stopRequestedAt.toISOString()}; it may not commit`, {
        workItemId: item.id,
        stopRequestedAt: item.stopRequestedAt.toISOString(),
      })
    : null;
  const refusal = mismatch ?? refusalToProceed(task, { intentVersion: item.preparedIntentVersion, proposalVersion: item.proposalVersion }) ?? stopped;
  const versions: CheckpointVersions = {
    preparedIntentVersion: item.preparedIntentVersion,
    taskIntentVersion: task.intentVersion,
    confirmedProposalVersion: item.proposalVersion,
    taskProposalVersion: task.proposalVersion,
  };
  return { refusal, versions };
}

const rejection = (item: CheckedItem, actor: string, refusal: AppError, versions: CheckpointVersions): EventInput => ({
  taskId: item.taskId,
  workItemId: item.id,
  entityType: "checkpoint",
  entityId: item.id,
  actor,
  type: LedgerEvent.checkpointRejected,
  reason: refusal.message,
  data: { code: refusal.code, ...versions },
});

/**
 * The versioned check right before a commitment (an external action). Passes only if the task has no
 * cancellation boundary and neither its intent nor the confirmed proposal moved since the item was
 * prepared. Both outcomes are recorded (a pass also in `checkpointPassedAt`); a refusal is thrown after the
 * record commits.
 *
 * What it does NOT guarantee: a Stop that arrives after a passed checkpoint cannot un-send the action. The
 * engine therefore treats an item with a passed checkpoint as possibly submitted and reconciles it.
 */
export function checkpointWorkItem(database: Database, input: CheckpointInput) {
  return onEngine(database, { postgres: (pg) => checkpointOnPostgres(database, pg, input), sqlite: () => checkpointInTransaction(database, input) });
}

/** The Prisma path (SQLite): read, judge and record in one transaction. */
function checkpointInTransaction(database: Database, input: CheckpointInput) {
  return writeLedger(database, async (w) => {
    const item = await loadLeasedItem(w, input.workItemId);
    if (item.leaseToken !== input.leaseToken || item.status !== WorkItemStatus.running) {
      return rejectStaleLease(w, item, input.leaseToken, "checkpoint", input.actor);
    }
    const { refusal, versions } = judge(item, item.task, input);
    if (refusal) {
      await w.event(rejection(item, input.actor, refusal, versions));
      return w.rejectAfterCommit(refusal);
    }
    await w.tx.workItem.updateMany({ where: { id: item.id, leaseToken: input.leaseToken }, data: { checkpointPassedAt: await w.now() } });
    await w.event({
      taskId: item.taskId,
      workItemId: item.id,
      entityType: "checkpoint",
      entityId: item.id,
      actor: input.actor,
      type: LedgerEvent.checkpointPassed,
      data: versions,
    });
    return { passed: true as const, intentVersion: item.task.intentVersion, proposalVersion: item.task.proposalVersion };
  });
}

/** One guarded statement passes it (sql/checkpoint.ts: it locks the task against the boundary); a refusal is explained here. */
async function checkpointOnPostgres(database: Database, pg: PgDirect, input: CheckpointInput) {
  for (let attempt = 0; ; attempt++) {
    const passed = await checkpointOnPg(pg, input);
    if (passed) return passed;
    const item = await database.prisma.workItem.findUnique({ where: { id: input.workItemId }, include: { task: true } });
    if (!item) throw staleLeaseError.notFound(input.workItemId);
    if (item.leaseToken !== input.leaseToken || item.status !== WorkItemStatus.running) {
      await insertEventOnPg(pg, staleLeaseError.event(item, input.leaseToken, "checkpoint", input.actor));
      throw staleLeaseError.error(item, "checkpoint");
    }
    const { refusal, versions } = judge(item, item.task, input);
    if (refusal) {
      await insertEventOnPg(pg, rejection(item, input.actor, refusal, versions));
      throw refusal;
    }
    if (attempt === 1) throw staleLeaseError.conflict(item);
  }
}

import type { Database } from "../db/client";
import { loadLeasedItem, rejectStaleLease, type LeaseHolder } from "./lease";
import { isLeasedItem, SideEffectOutcome, WorkItemStatus } from "./states";
import { casUpdate, conflict, writeLedger, type Writer } from "./write";
import { LedgerEvent } from "./events";

export interface SubmissionInput extends LeaseHolder {
  operationId: string;
  providerRef?: string | null;
  externalRecordId?: string | null;
  externalVersion?: string | null;
  reversible?: boolean;
  description?: string | null;
  actor: string;
}

/**
 * Records that an external service accepted an action, before the worker waits for its result: from here on
 * the outcome can always be asked for by `operationId`, even if the worker dies (invariant 5).
 *
 * The fact is never lost: even a call with a stale lease token gets its side effect recorded (as unknown,
 * for reconciliation) — only the state change is refused. A repeat with the same operation id is idempotent.
 */
export async function recordSubmission(database: Database, input: SubmissionInput) {
  return writeLedger(database, async (w) => {
    const item = await loadLeasedItem(w, input.workItemId);
    const existing = await w.tx.sideEffect.findUnique({ where: { operationId: input.operationId } });
    if (item.operationId === input.operationId && (existing?.workItemId ?? item.id) === item.id) {
      return { workItem: item, sideEffect: existing }; // a repeat of the same report
    }
    if (item.leaseToken !== input.leaseToken || !isLeasedItem(item.status)) {
      if (!existing && item.commitsEffect) await recordSideEffect(w, item, input);
      return rejectStaleLease(w, item, input.leaseToken, "submission", input.actor, { operationId: input.operationId });
    }
    if (existing) throw conflict("sideEffect", existing.id, "absent", `recorded for work item ${existing.workItemId}`);
    const now = await w.now();
    if (item.status !== WorkItemStatus.running) {
      // The current holder of a child that is being stopped (or cannot be stopped, or is uncertain) reports
      // an action it had already committed to: a fact to record, with no change of state.
      await w.tx.workItem.updateMany({
        where: { id: item.id, leaseToken: input.leaseToken },
        data: { operationId: input.operationId, providerRef: input.providerRef ?? null, submittedAt: now, rowVersion: { increment: 1 } },
      });
      await w.event({
        taskId: item.taskId,
        workItemId: item.id,
        entityType: "workItem",
        entityId: item.id,
        actor: input.actor,
        type: LedgerEvent.workItemSubmitted,
        fromState: item.status,
        toState: item.status,
        data: { operationId: input.operationId, providerRef: input.providerRef ?? null },
      });
      const sideEffect = item.commitsEffect ? await recordSideEffect(w, item, input) : null;
      return { workItem: await w.tx.workItem.findUniqueOrThrow({ where: { id: item.id } }), sideEffect };
    }
    const moved = await casUpdate(w, {
      entity: "workItem",
      id: item.id,
      from: WorkItemStatus.running,
      to: WorkItemStatus.submitted,
      guard: { leaseToken: input.leaseToken },
      data: { operationId: input.operationId, providerRef: input.providerRef ?? null, submittedAt: now },
      event: {
        taskId: item.taskId,
        workItemId: item.id,
        actor: input.actor,
        type: LedgerEvent.workItemSubmitted,
        data: { operationId: input.operationId, providerRef: input.providerRef ?? null },
      },
    });
    if (!moved) throw conflict("workItem", item.id, WorkItemStatus.running, item.status);
    // Only a commitment is a side effect; a read-only job's id is kept on the item as its provider reference.
    const sideEffect = item.commitsEffect ? await recordSideEffect(w, item, input) : null;
    return { workItem: await w.tx.workItem.findUniqueOrThrow({ where: { id: item.id } }), sideEffect };
  });
}

async function recordSideEffect(w: Writer, item: { id: string; taskId: string }, input: SubmissionInput) {
  const sideEffect = await w.tx.sideEffect.create({
    data: {
      taskId: item.taskId,
      workItemId: item.id,
      operationId: input.operationId,
      providerRef: input.providerRef ?? null,
      externalRecordId: input.externalRecordId ?? null,
      externalVersion: input.externalVersion ?? null,
      reversible: input.reversible ?? false,
      description: input.description ?? null,
      outcome: SideEffectOutcome.unknown,
    },
  });
  await w.event({
    taskId: item.taskId,
    workItemId: item.id,
    entityType: "sideEffect",
    entityId: sideEffect.id,
    actor: input.actor,
    type: LedgerEvent.sideEffectRecorded,
    toState: sideEffect.outcome,
    data: { operationId: input.operationId, reversible: sideEffect.reversible },
  });
  return sideEffect;
}

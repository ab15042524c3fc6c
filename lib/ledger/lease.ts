import { randomUUID } from "node:crypto";
import { AppError, ErrorCode } from "../errors";
import type { EventInput, Rejected, Writer } from "./write";
import { LedgerEvent } from "./events";

export const DEFAULT_LEASE_MS = 30_000;

export const newLeaseToken = () => randomUUID();

export interface LeaseHolder {
  workItemId: string;
  leaseToken: string;
}

/**
 * Loads a work item with its task for a lease holder's call; unknown id → 404. On PostgreSQL the item's row is
 * locked for the rest of the transaction first: writes about one work item (a late submission, a
 * reconciliation, a report) happen one after the other, whatever else runs concurrently.
 */
export async function loadLeasedItem(w: Writer, workItemId: string) {
  await lockWorkItem(w, workItemId);
  const item = await w.tx.workItem.findUnique({ where: { id: workItemId }, include: { task: true } });
  if (!item) throw staleLeaseError.notFound(workItemId);
  return item;
}

/**
 * A call made with a lease token that is not the item's current one (the lease expired and was reclaimed,
 * or never existed) is rejected — and the attempt is recorded, so a zombie worker shows up in the history.
 */
export async function rejectStaleLease(
  w: Writer,
  item: StaleItem,
  presented: string,
  action: string,
  actor: string,
  data: Record<string, unknown> = {},
): Promise<Rejected> {
  await w.event(staleLeaseError.event(item, presented, action, actor, data));
  return w.rejectAfterCommit(staleLeaseError.error(item, action));
}

type StaleItem = { id: string; taskId: string; status: string };

/** The record and the error of a stale-lease rejection (shared by both write paths). */
export const staleLeaseError = {
  event: (item: StaleItem, presented: string, action: string, actor: string, data: Record<string, unknown> = {}): EventInput => ({
    taskId: item.taskId,
    workItemId: item.id,
    entityType: "lease",
    entityId: item.id,
    actor,
    type: LedgerEvent.leaseStaleTokenRejected,
    fromState: item.status,
    reason: `${action} with a lease token that is not current`,
    data: { action, presentedToken: presented, ...data },
  }),
  error: (item: StaleItem, action = "complete") =>
    new AppError(ErrorCode.staleLease, `lease token is not current for work item ${item.id}; ${action} rejected`, {
      workItemId: item.id,
      currentState: item.status,
    }),
  notFound: (workItemId: string) => new AppError(ErrorCode.notFound, `work item ${workItemId} not found`, { workItemId }),
  conflict: (item: StaleItem) =>
    new AppError(ErrorCode.conflict, `work item ${item.id} changed while completing; it was "${item.status}"`, {
      workItemId: item.id,
      expectedState: item.status,
    }),
};

/** PostgreSQL: locks a work item's row until the transaction ends (SQLite has one writer at a time anyway). */
export async function lockWorkItem(w: Writer, workItemId: string): Promise<void> {
  await w.lockRow("workItem", workItemId);
}

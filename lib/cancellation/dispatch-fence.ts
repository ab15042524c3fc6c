import type { Database } from "../db/client";
import { LedgerEvent } from "../ledger/events";
import { writeLedger } from "../ledger/write";
import { ENGINE_ACTOR, logStep } from "./step-log";

/** A run's cancel settings (EngineOptions) and their defaults (execute-cancellation.ts, execute-child-cancellation.ts). */
export type CancelSettings = { cancelAttempts?: number; cancelBackoffMs?: number; cancelTimeoutMs?: number };
export const CANCEL_DEFAULTS = { cancelAttempts: 3, cancelBackoffMs: 200, cancelTimeoutMs: 5_000 } as const;
const IN_FLIGHT_MARGIN_MS = 5_000;

/**
 * How long a dispatched cancel counts as in flight: the longest its run's call can take — every attempt timing out,
 * with withRetries' doubling back-off between them (step-log.ts) — and a margin; every engine of a deployment runs with
 * the same settings. A run that crashed mid-call must not block its child for ever, nor for long: at a fixed 60 s, a
 * Stop whose engine was killed right after sending its cancel stayed IN_PROGRESS for a minute, logging "a cancel sent by
 * another engine run is not answered yet" several times a second (random conformance, PostgreSQL seed 1207 #99).
 */
export function cancelInFlightMs(settings: CancelSettings = {}): number {
  const { cancelAttempts: attempts, cancelBackoffMs: backoff, cancelTimeoutMs: timeout } = { ...CANCEL_DEFAULTS, ...definedOnly(settings) };
  return attempts * timeout + backoff * (2 ** Math.max(0, attempts - 1) - 1) + IN_FLIGHT_MARGIN_MS;
}
const definedOnly = (o: CancelSettings) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as CancelSettings;

/**
 * Whether this process should record that a pass found another run's cancel unanswered: once per child and in-flight
 * window. Passes retry several times a second; a line each was a hundred identical steps in the task's history for one
 * dead run's dispatch (random conformance, PostgreSQL seed 1207 #99).
 */
const waitingNoted = new Map<string, number>();
export function firstNoticeOfCancelInFlight(workItemId: string, settings: CancelSettings = {}, now = Date.now()): boolean {
  const window = cancelInFlightMs(settings);
  for (const [id, at] of waitingNoted) if (now - at >= window) waitingNoted.delete(id);
  if (waitingNoted.has(workItemId)) return false;
  waitingNoted.set(workItemId, now);
  return true;
}

/** Records, once per child and window, that a pass left a child to another run's unanswered cancel (and why it waits). */
export async function noteCancelInFlight(
  database: Database,
  item: { id: string; taskId: string },
  step: { action: string; then: string },
  settings: CancelSettings = {},
) {
  if (!firstNoticeOfCancelInFlight(item.id, settings)) return;
  await logStep(database, {
    taskId: item.taskId,
    workItemId: item.id,
    action: step.action,
    success: false,
    detail: `a cancel sent by another engine run is not answered yet: ${step.then}`,
  });
}

/**
 * The fence "one provider cancel (or rollback) per child": a guarded write that only one engine run wins —
 * none was dispatched yet, or the last one failed (it may be tried again), or it was dispatched so long ago
 * without an answer that its run must have died. The caller sends the cancel only when this returns true.
 */
export async function claimDispatch(database: Database, item: { id: string; taskId: string }, action: string, settings: CancelSettings = {}): Promise<boolean> {
  return writeLedger(database, async (w) => {
    const now = await w.now();
    const { count } = await w.tx.workItem.updateMany({
      where: {
        id: item.id,
        OR: [
          { cancelDispatchedAt: null },
          { cancelAnsweredAt: { not: null }, cancelWithdrawnAt: null },
          { cancelAnsweredAt: null, cancelDispatchedAt: { lt: new Date(now.getTime() - cancelInFlightMs(settings)) } },
        ],
      },
      data: { cancelDispatchedAt: now, cancelDispatchAction: action, cancelAnsweredAt: null },
    });
    if (!count) return false;
    await w.event({
      taskId: item.taskId,
      workItemId: item.id,
      entityType: "workItem",
      entityId: item.id,
      actor: ENGINE_ACTOR,
      type: LedgerEvent.cancellationDispatched,
      data: { action },
    });
    return true;
  });
}

/**
 * The dispatched cancel answered. Acknowledged (`withdrawn`): from now on the service's "not committed" is
 * final. Recorded before the step that reports it, so that whoever sees the step also sees the withdrawal.
 */
export async function recordCancelAnswer(database: Database, item: { id: string; taskId: string }, acknowledged: boolean) {
  await writeLedger(database, async (w) => {
    const now = await w.now();
    await w.tx.workItem.updateMany({ where: { id: item.id }, data: { cancelAnsweredAt: now, ...(acknowledged ? { cancelWithdrawnAt: now } : {}) } });
    if (acknowledged)
      await w.event({
        taskId: item.taskId,
        workItemId: item.id,
        entityType: "workItem",
        entityId: item.id,
        actor: ENGINE_ACTOR,
        type: LedgerEvent.cancellationWithdrawn,
      });
  });
}

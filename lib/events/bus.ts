import { EventEmitter } from "node:events";

/**
 * In-process notification that ledger events were committed. It only wakes listeners early (SSE streams,
 * the in-process worker pool); the events table stays the source of truth, so subscribers in other
 * processes see the same events by polling it.
 */
export interface CommittedEvent {
  seq: number;
  taskId: string | null;
  workItemId: string | null;
  type: string;
  toState: string | null;
}

const globalForBus = globalThis as unknown as { stoplineBus?: EventEmitter };
const bus = (globalForBus.stoplineBus ??= new EventEmitter().setMaxListeners(0));

/**
 * Announces committed events on the next turn of the event loop: the writer (e.g. the Stop request) gets
 * its answer first, and listeners' reactions (aborting a hundred running children, each writing its
 * outcome) do not run inside the writer's await. Order is kept (setImmediate is FIFO).
 */
export function publishCommitted(events: CommittedEvent[]): void {
  if (events.length) setImmediate(() => bus.emit("committed", events));
}

export function onCommitted(listener: (events: CommittedEvent[]) => void): () => void {
  bus.on("committed", listener);
  return () => bus.off("committed", listener);
}

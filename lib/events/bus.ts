import { EventEmitter } from "node:events";
import type { LedgerEventType } from "../ledger/events";

/**
 * In-process notification that ledger events were committed. It only wakes listeners early (SSE streams, the
 * worker pool, running children's AbortSignals, the engine); the events table stays the source of truth.
 * `local` events were committed by this process and are announced right after their commit; `remote` ones were
 * committed by another process and are announced by this process's live view when it reads them
 * (lib/events/live.ts, woken by NOTIFY on PostgreSQL).
 */
export interface CommittedEvent {
  seq: number;
  taskId: string | null;
  workItemId: string | null;
  type: LedgerEventType;
  toState: string | null;
  origin?: "local" | "remote";
}

/** The bus's one channel and what it carries: a listener gets typed events, never `any`. */
type BusEvents = { committed: [CommittedEvent[]] };
const globalForBus = globalThis as unknown as { stoplineBus?: EventEmitter<BusEvents> };
const bus = (globalForBus.stoplineBus ??= new EventEmitter<BusEvents>().setMaxListeners(0));

/**
 * Announces events this process committed, on the next turn of the event loop: the writer (e.g. the Stop
 * request) gets its answer first, and listeners' reactions (aborting a hundred running children, each writing
 * its outcome) do not run inside the writer's await. Order is kept (setImmediate is FIFO).
 */
export function publishCommitted(events: CommittedEvent[]): void {
  if (events.length)
    setImmediate(() =>
      bus.emit(
        "committed",
        events.map((e) => ({ ...e, origin: "local" as const })),
      ),
    );
}

/** Announces events another process committed (the live view, once it has read them). */
export function publishRemote(events: CommittedEvent[]): void {
  if (events.length)
    bus.emit(
      "committed",
      events.map((e) => ({ ...e, origin: "remote" as const })),
    );
}

export function onCommitted(listener: (events: CommittedEvent[]) => void): () => void {
  bus.on("committed", listener);
  return () => bus.off("committed", listener);
}

/** Waits by the key an event wakes them with: `task:<id>` (any event of the task), `item:<id>` (any of the work item). */
const waits = new Map<string, Set<() => void>>();
let waitsHeard = false;
function wakeWaits(events: CommittedEvent[]) {
  for (const e of events)
    for (const key of [e.taskId && `task:${e.taskId}`, e.workItemId && `item:${e.workItemId}`]) if (key) for (const wake of [...(waits.get(key) ?? [])]) wake();
}

/**
 * A wake-up at the next committed event of the task (or of one of the work items), or after `ms`, whichever comes
 * first. Subscribe before reading what the event would change (an event committed between the read and the wait still
 * wakes it), and re-read after it: an event is a hint, the ledger is the answer. `cancel` ends the wait early.
 * One bus listener serves every wait, by key: a listener per wait made each committed batch visit every waiting pass
 * (a mass Stop has hundreds; the same fix as the running children's Stop notices, lib/workers/stop-notices.ts).
 */
export function nextCommittedOf(scope: { taskId: string } | { workItemIds: readonly string[] }, ms: number): { woken: Promise<void>; cancel: () => void } {
  if (!waitsHeard) {
    waitsHeard = true;
    onCommitted(wakeWaits);
  }
  const keys = "taskId" in scope ? [`task:${scope.taskId}`] : scope.workItemIds.map((id) => `item:${id}`);
  let cancel = () => {};
  const woken = new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    for (const key of keys) {
      const set = waits.get(key) ?? new Set();
      set.add(done);
      waits.set(key, set);
    }
    function done() {
      clearTimeout(timer);
      for (const key of keys) {
        const set = waits.get(key);
        set?.delete(done);
        if (set && !set.size) waits.delete(key);
      }
      resolve();
    }
    cancel = done;
  });
  return { woken, cancel };
}

import { onCommitted, type CommittedEvent } from "../events/bus";
import { LedgerEvent } from "../ledger/events";
import { WorkItemStatus } from "../ledger/states";

/**
 * The Stop notices this process heard lately (a task's cancellation, a step's Stop, the engine stopping a step), so
 * that a run which begins listening after its notice went by still hears it: a slot claims an item, the Stop commits
 * and is announced, and only then does the run subscribe. A notice is a reason to ask the ledger, never a verdict —
 * the task may have a newer intent since (a new message after the Stop), which the ledger's answer knows.
 */
const HEARD_FOR_MS = 60_000;
const MAX_NOTICES = 10_000;
const heard = new Map<string, number>();

function note(key: string, now: number) {
  heard.delete(key); // re-inserted at the end: the map stays in the order heard
  heard.set(key, now);
  for (const [oldest, at] of heard) {
    if (heard.size <= MAX_NOTICES && now - at < HEARD_FOR_MS) break;
    heard.delete(oldest);
  }
}

/** What a Stop notice says, for the run that hears it (its AbortSignal's reason). */
export const StopNotice = {
  taskCancelRequested: "the task's cancellation was recorded",
  itemCancelling: "the engine is stopping this work item",
  itemStopRequested: "a Stop of this step was recorded",
} as const;
export type StopNotice = (typeof StopNotice)[keyof typeof StopNotice];

/** The Stop notices one committed event is (the one rule of what stops a running child early), keyed as `heard` is. */
function noticesOf(e: CommittedEvent): [key: string, notice: StopNotice][] {
  const notices: [string, StopNotice][] = [];
  if (e.type === LedgerEvent.taskCancelRequested && e.taskId) notices.push([`task:${e.taskId}`, StopNotice.taskCancelRequested]);
  if (e.workItemId && e.toState === WorkItemStatus.cancelling) notices.push([`item:${e.workItemId}`, StopNotice.itemCancelling]);
  if (e.workItemId && e.type === LedgerEvent.workItemStopRequested) notices.push([`item:${e.workItemId}`, StopNotice.itemStopRequested]);
  return notices;
}

/**
 * The runs listening, by the key their notice carries. One bus listener for the process, whatever the number of
 * running children: a listener per run made every committed batch visit every run (a worker with 5,000 children
 * waiting on their signals spent a quarter of its time there — issue 22 §5, bench:pg part D).
 */
const listening = new Map<string, Set<(notice: StopNotice) => void>>();

onCommitted((events) => {
  const now = Date.now();
  for (const e of events)
    for (const [key, notice] of noticesOf(e)) {
      note(key, now);
      for (const listener of listening.get(key) ?? []) listener(notice);
    }
});

/** Calls `listener` at each Stop notice for this item or its task from now on; returns the way to stop listening. */
export function onStopNotice(item: { id: string; taskId: string }, listener: (notice: StopNotice) => void): () => void {
  const keys = [`task:${item.taskId}`, `item:${item.id}`];
  for (const key of keys) {
    const set = listening.get(key) ?? new Set();
    set.add(listener);
    listening.set(key, set);
  }
  return () => {
    for (const key of keys) {
      const set = listening.get(key);
      set?.delete(listener);
      if (set && !set.size) listening.delete(key);
    }
  };
}

/** Was a Stop notice for this item or its task heard in the last minute? */
export function stopNoticeHeard(item: { id: string; taskId: string }, now = Date.now()): boolean {
  const at = Math.max(heard.get(`task:${item.taskId}`) ?? 0, heard.get(`item:${item.id}`) ?? 0);
  return now - at < HEARD_FOR_MS;
}

import { onCommitted } from "../events/bus";
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

onCommitted((events) => {
  const now = Date.now();
  for (const e of events) {
    if (e.type === LedgerEvent.taskCancelRequested && e.taskId) note(`task:${e.taskId}`, now);
    if (e.workItemId && (e.type === LedgerEvent.workItemStopRequested || e.toState === WorkItemStatus.cancelling)) note(`item:${e.workItemId}`, now);
  }
});

/** Was a Stop notice for this item or its task heard in the last minute? */
export function stopNoticeHeard(item: { id: string; taskId: string }, now = Date.now()): boolean {
  const at = Math.max(heard.get(`task:${item.taskId}`) ?? 0, heard.get(`item:${item.id}`) ?? 0);
  return now - at < HEARD_FOR_MS;
}

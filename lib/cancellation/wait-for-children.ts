import { nextCommittedOf } from "../events/bus";

/**
 * How long a pass waits between two reads while children are still being stopped when no event of theirs arrives.
 * Their reports wake it at once (this process's commits, and other processes' through the live view); the read
 * every 250 ms covers a process without a live view. A 25 ms poll cost a Stop whose children take seconds to stop
 * ~40 reads a second each (bench:pg part D: Stops of tasks with children that do not answer at once).
 */
export const CHILDREN_RECHECK_MS = 250;

/**
 * Waits until `remaining()` reads 0 or `timeoutMs` passed, reading again whenever a ledger event of the task (or of
 * one of the children) is committed. Returns the last count read.
 */
export async function waitForChildren(
  scope: { taskId: string } | { ids: readonly string[] },
  remaining: () => Promise<number>,
  timeoutMs: number,
): Promise<number> {
  const keys = "ids" in scope ? { workItemIds: scope.ids } : { taskId: scope.taskId };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // Subscribed before the read: a report committed between the read and the wait still wakes it.
    const wait = nextCommittedOf(keys, Math.max(0, Math.min(CHILDREN_RECHECK_MS, deadline - Date.now())));
    const left = await remaining();
    if (left === 0 || Date.now() >= deadline) {
      wait.cancel();
      return left;
    }
    await wait.woken;
  }
}

import { describe, expect, it } from "vitest";
import { publishCommitted, publishRemote } from "@/lib/events/bus";
import { LedgerEvent } from "@/lib/ledger/events";
import { CHILDREN_RECHECK_MS, waitForChildren } from "@/lib/cancellation/wait-for-children";

// A pass waiting for children that stop by themselves reads the ledger when one of them reports, not 40 times a second.
describe("waiting for children being stopped", () => {
  const finished = (taskId: string, workItemId: string) => ({ seq: 1, taskId, workItemId, type: LedgerEvent.workItemFinished, toState: "cancelled" });

  it("reads again as soon as a child of the task reports — long before the fallback read", async () => {
    let left = 2;
    let reads = 0;
    const started = performance.now();
    const waiting = waitForChildren({ taskId: "t1" }, async () => (reads++, left), 5_000);
    await new Promise((r) => setTimeout(r, 20));
    left = 0; // the child's report commits…
    publishCommitted([finished("t1", "w1")]); // …and is announced
    expect(await waiting).toBe(0);
    expect(performance.now() - started).toBeLessThan(CHILDREN_RECHECK_MS);
    expect(reads).toBe(2);
  });

  it("another task's events do not wake it; without any event it still reads every CHILDREN_RECHECK_MS", async () => {
    let reads = 0;
    const waiting = waitForChildren({ taskId: "t2" }, async () => (++reads >= 3 ? 0 : 1), 5_000);
    await new Promise((r) => setTimeout(r, 20));
    publishRemote([finished("another task", "w9")]);
    await new Promise((r) => setTimeout(r, 20));
    expect(reads).toBe(1);
    const started = performance.now();
    expect(await waiting).toBe(0);
    expect(reads).toBe(3);
    expect(performance.now() - started).toBeGreaterThanOrEqual(CHILDREN_RECHECK_MS); // two fallback reads, ~2 × 250 ms
  });

  it("a scope of children wakes on their own events, and the wait ends at its bound with what is left", async () => {
    let reads = 0;
    const waiting = waitForChildren({ ids: ["c1", "c2"] }, async () => (reads++, 2), 100);
    await new Promise((r) => setTimeout(r, 10));
    publishRemote([finished("t3", "c2")]);
    expect(await waiting).toBe(2);
    expect(reads).toBeGreaterThanOrEqual(2); // the start, c2's event, then the bound
  });

  it("a report committed between the read and the wait still wakes it (subscribed before the read)", async () => {
    let left = 1;
    const started = performance.now();
    const waiting = waitForChildren(
      { taskId: "t4" },
      async () => {
        const now = left;
        if (left) {
          left = 0;
          publishCommitted([finished("t4", "w4")]); // the report lands while the count is in flight
        }
        return now;
      },
      5_000,
    );
    expect(await waiting).toBe(0);
    expect(performance.now() - started).toBeLessThan(CHILDREN_RECHECK_MS);
  });

  it("a thousand passes waiting at once add no listener to the bus, and a report wakes only its own task's pass", async () => {
    const busListeners = () => (globalThis as { stoplineBus?: { listenerCount(name: string): number } }).stoplineBus?.listenerCount("committed") ?? 0;
    let firstLeft = 1;
    const first = waitForChildren({ taskId: "many-0" }, async () => firstLeft, 5_000); // the shared listener, if not yet there
    const before = busListeners();
    const reads = new Map<string, number>();
    const left = new Map<string, number>();
    const passes = Array.from({ length: 1_000 }, (_, i) => {
      const taskId = `many-${i + 1}`;
      left.set(taskId, 1);
      const remaining = async () => {
        reads.set(taskId, (reads.get(taskId) ?? 0) + 1);
        return left.get(taskId)!;
      };
      return waitForChildren({ taskId }, remaining, 5_000);
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(busListeners()).toBe(before);
    left.set("many-777", 0);
    publishRemote([finished("many-777", "w777")]);
    expect(await passes[776]).toBe(0);
    expect(reads.get("many-777")).toBe(2);
    expect(reads.get("many-778")).toBe(1); // not woken by another task's report
    // The rest end when their children do; each wait leaves nothing behind.
    for (const taskId of left.keys()) left.set(taskId, 0);
    publishRemote([...left.keys()].map((taskId) => finished(taskId, `w-${taskId}`)));
    firstLeft = 0;
    publishRemote([finished("many-0", "w0")]);
    expect(await Promise.all(passes)).toEqual(passes.map(() => 0));
    expect(await first).toBe(0);
  });
});

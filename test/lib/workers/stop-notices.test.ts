import { describe, expect, it } from "vitest";
import { publishRemote, type CommittedEvent } from "../../../lib/events/bus";
import { LedgerEvent } from "../../../lib/ledger/events";
import { WorkItemStatus } from "../../../lib/ledger/states";
import { onStopNotice, StopNotice, stopNoticeHeard } from "../../../lib/workers/stop-notices";

// A running child hears the Stop notices of its task and of itself — and nothing else; however many children run,
// the process keeps one listener on the bus (a listener per run made each committed batch visit every run).

let seq = 1;
const event = (e: Partial<CommittedEvent> & Pick<CommittedEvent, "type">): CommittedEvent => ({
  seq: seq++,
  taskId: null,
  workItemId: null,
  toState: null,
  ...e,
});
const busListeners = () => (globalThis as { stoplineBus?: { listenerCount(name: string): number } }).stoplineBus?.listenerCount("committed") ?? 0;

describe("Stop notices for running children", () => {
  it("each run hears its task's cancellation, the engine stopping it and a Stop of its step, and no other task's or step's", () => {
    const heard = new Map<string, StopNotice[]>();
    const run = (id: string, taskId: string) => onStopNotice({ id, taskId }, (notice) => heard.set(id, [...(heard.get(id) ?? []), notice]));
    const offs = [run("w1", "t1"), run("w2", "t1"), run("w3", "t2")];

    publishRemote([event({ type: LedgerEvent.taskCancelRequested, taskId: "t1" })]);
    expect(heard.get("w1")).toEqual([StopNotice.taskCancelRequested]);
    expect(heard.get("w2")).toEqual([StopNotice.taskCancelRequested]);
    expect(heard.get("w3")).toBeUndefined();

    publishRemote([
      event({ type: LedgerEvent.workItemCancelling, taskId: "t2", workItemId: "w3", toState: WorkItemStatus.cancelling }),
      event({ type: LedgerEvent.workItemStopRequested, taskId: "t1", workItemId: "w2" }),
      event({ type: LedgerEvent.workItemFinished, taskId: "t1", workItemId: "w1", toState: WorkItemStatus.completed }), // not a Stop
    ]);
    expect(heard.get("w3")).toEqual([StopNotice.itemCancelling]);
    expect(heard.get("w2")).toEqual([StopNotice.taskCancelRequested, StopNotice.itemStopRequested]);
    expect(heard.get("w1")).toEqual([StopNotice.taskCancelRequested]);

    // A run that ended stops listening; the notice is still remembered for a run that begins after it.
    offs[2]();
    publishRemote([event({ type: LedgerEvent.taskCancelRequested, taskId: "t2" })]);
    expect(heard.get("w3")).toEqual([StopNotice.itemCancelling]);
    expect(stopNoticeHeard({ id: "w9", taskId: "t2" })).toBe(true);
    expect(stopNoticeHeard({ id: "w9", taskId: "t-never-stopped" })).toBe(false);
    for (const off of offs) off();
  });

  it("5,000 running children add no listener to the bus, and each hears only its own notice", () => {
    const before = busListeners();
    const calls: string[] = [];
    const offs = Array.from({ length: 5_000 }, (_, i) => onStopNotice({ id: `many-w${i}`, taskId: `many-t${i}` }, () => calls.push(`many-w${i}`)));
    expect(busListeners()).toBe(before);
    publishRemote([event({ type: LedgerEvent.taskCancelRequested, taskId: "many-t4321" })]);
    expect(calls).toEqual(["many-w4321"]);
    for (const off of offs) off();
    publishRemote([event({ type: LedgerEvent.taskCancelRequested, taskId: "many-t17" })]);
    expect(calls).toEqual(["many-w4321"]);
  });
});

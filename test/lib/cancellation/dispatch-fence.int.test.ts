import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../lib/db/scratch-database";
import { CANCEL_DEFAULTS, cancelInFlightMs, claimDispatch, firstNoticeOfCancelInFlight, recordCancelAnswer } from "../../../lib/cancellation/dispatch-fence";
import { ENGINE_OPTIONS } from "../../../lib/conformance/random/settings";
import { createTask } from "../../../lib/ledger/create-task";
import { LedgerEvent } from "../../../lib/ledger/events";
import { scheduleWorkItem } from "../../../lib/ledger/schedule-work-item";

// One provider cancel per child at a time, whoever runs the Stop — and a run that died after sending its cancel blocks
// the child only as long as its call could have taken. At a fixed 60 s, a Stop whose engine was killed right after
// dispatching stayed IN_PROGRESS a minute (random conformance, PostgreSQL seed 1207 #99).

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => t?.drop());

const actor = "agent:test";

async function childWithDispatch(title: string) {
  const task = await createTask(t.database, { title, ownerId: "alice" }, actor);
  return scheduleWorkItem(t.database, { taskId: task.id, kind: "remote_tool", toolName: "fence.tool", mechanism: "provider_cancel", intentVersion: 1 }, actor);
}
/** As if the dispatch had been sent `ms` ago (the ledger's clock is UTC, as every write's). */
const dispatchedAgo = (id: string, ms: number) => t.database.prisma.workItem.update({ where: { id }, data: { cancelDispatchedAt: new Date(Date.now() - ms) } });
const dispatches = async (id: string) => t.database.prisma.ledgerEvent.count({ where: { workItemId: id, type: LedgerEvent.cancellationDispatched } });

describe("the dispatch fence", () => {
  it("counts a cancel in flight for its run's whole budget — every attempt timing out, the back-off between them — and a margin", () => {
    expect(cancelInFlightMs()).toBe(3 * 5_000 + 200 * (1 + 2) + 5_000);
    expect(cancelInFlightMs(CANCEL_DEFAULTS)).toBe(cancelInFlightMs());
    expect(cancelInFlightMs({ cancelAttempts: undefined })).toBe(cancelInFlightMs()); // an option left unset is the default
    expect(cancelInFlightMs(ENGINE_OPTIONS)).toBe(2 * 1_000 + 20 + 5_000);
  });

  it("a run that died after dispatching: the others wait while its call could still be answering, then one takes over", async () => {
    const item = await childWithDispatch("its engine died mid-cancel");
    expect(await claimDispatch(t.database, item, "provider_cancel", ENGINE_OPTIONS)).toBe(true);
    // Never answered (the run was killed). Within its budget nobody sends a second cancel…
    expect(await claimDispatch(t.database, item, "provider_cancel", ENGINE_OPTIONS)).toBe(false);
    await dispatchedAgo(item.id, cancelInFlightMs(ENGINE_OPTIONS) - 2_000);
    expect(await claimDispatch(t.database, item, "provider_cancel", ENGINE_OPTIONS)).toBe(false);
    // …past it, exactly one of two runs at once takes over (well before the old fixed minute).
    await dispatchedAgo(item.id, cancelInFlightMs(ENGINE_OPTIONS) + 1_000);
    const runs = await Promise.all([
      claimDispatch(t.database, item, "provider_cancel", ENGINE_OPTIONS),
      claimDispatch(t.database, item, "provider_cancel", ENGINE_OPTIONS),
    ]);
    expect(runs.sort()).toEqual([false, true]);
    expect(await dispatches(item.id)).toBe(2);
  });

  it("with the default settings a dispatch 15 s old is still in flight; answered and refused, the cancel may be sent again at once", async () => {
    const item = await childWithDispatch("slow service");
    expect(await claimDispatch(t.database, item, "provider_cancel")).toBe(true);
    await dispatchedAgo(item.id, 15_000);
    expect(await claimDispatch(t.database, item, "provider_cancel")).toBe(false);
    await recordCancelAnswer(t.database, item, false); // the service refused: nothing in flight any more
    expect(await claimDispatch(t.database, item, "provider_cancel")).toBe(true);
    await recordCancelAnswer(t.database, item, true); // acknowledged: never sent again
    await dispatchedAgo(item.id, 10 * 60_000);
    expect(await claimDispatch(t.database, item, "provider_cancel")).toBe(false);
  });

  it("a pass that finds another run's cancel unanswered notes it once per child and in-flight window, not once per pass", () => {
    const window = cancelInFlightMs(ENGINE_OPTIONS);
    const at = 1_000_000;
    expect(firstNoticeOfCancelInFlight("child-a", ENGINE_OPTIONS, at)).toBe(true);
    expect(firstNoticeOfCancelInFlight("child-a", ENGINE_OPTIONS, at + 100)).toBe(false);
    expect(firstNoticeOfCancelInFlight("child-b", ENGINE_OPTIONS, at + 100)).toBe(true);
    expect(firstNoticeOfCancelInFlight("child-a", ENGINE_OPTIONS, at + window - 1)).toBe(false);
    expect(firstNoticeOfCancelInFlight("child-a", ENGINE_OPTIONS, at + window)).toBe(true); // a new window: noted again
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, testEngine, type TestDatabase } from "../../../lib/db/scratch-database";
import { claimEngineRun, releaseEngineRun } from "../../../lib/cancellation/engine-lease";
import { readBoundaryFacts } from "../../../lib/cancellation/read-boundary-facts";
import { requestCancellation } from "../../../lib/cancellation/steps/1-record-boundary";
import { createTask } from "../../../lib/ledger/create-task";
import { scheduleWorkItem } from "../../../lib/ledger/schedule-work-item";
import { cancelQueuedAndClaimRunsOnPg } from "../../../lib/ledger/sql/remove-queued";
import { settleQuietlyOnPg } from "../../../lib/ledger/sql/settle-quietly";
import { OPEN_REVIEW_STATUSES, TaskStage, WorkItemStatus } from "../../../lib/ledger/states";
import { BUSY_STATUSES } from "../../../lib/cancellation/steps/8-settle";
import { LedgerEvent } from "../../../lib/ledger/events";
import { explainPlan, type PlanNode, planOfCall, rereadCtes, rowsRead, scansOf } from "../../support/explain-plan";

// A mass Stop (an incident, a kill switch, a busy hour): hundreds of tasks are `cancel_requested` at once — a stage
// that is transient, so the statistics, gathered before, call it rare. Each Stop's own statements must still read
// its own task only; read by stage, each read every other Stop in flight (issue 22 §5: the engine's start statement
// took 2.5 ms a Stop in bench:pg part D, most of a Stop's PostgreSQL time).

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => t?.drop());

const actor = "agent:test";
const IN_FLIGHT = 300;

const planOf = <T>(name: string, generic: boolean, call: () => Promise<T>) => planOfCall(t.database.pg!, name, call, { generic });

describe.skipIf(testEngine() !== "postgres")("a mass Stop: each Stop's statements read its own task, however many others are being stopped", () => {
  it("with 300 tasks being stopped, 1,500 children queued and statistics from before, the engine's start reads its own task and children, its lease and its quiet settlement one task row", async () => {
    const others: { id: string }[] = [];
    for (let i = 0; i < IN_FLIGHT; i++) others.push(await createTask(t.database, { title: `in flight ${i}`, ownerId: "alice" }, actor));
    const task = await createTask(t.database, { title: "the Stop we look at", ownerId: "alice" }, actor);
    const queued: { id: string }[] = [];
    for (let i = 0; i < 2; i++)
      queued.push(
        await scheduleWorkItem(
          t.database,
          { taskId: task.id, kind: "local_worker", toolName: "mass.queued", mechanism: "abort_signal", intentVersion: 1 },
          actor,
        ),
      );
    // `n` children of the other tasks, `status` each, named `prefix`-i.
    const children = (prefix: string, status: string, n: number) =>
      t.database.pg!.query(
        `INSERT INTO "WorkItem" ("id","taskId","kind","toolName","correlationId","status","preparedIntentVersion","mechanism","idempotencyKey","createdAt","updatedAt")
         SELECT $3 || g, ($1::text[])[1 + g % $2], 'local_worker', 'mass.queued', $3 || g, $4, 1, 'abort_signal', $3 || g || ':key',
           timezone('UTC', now()), timezone('UTC', now())
         FROM generate_series(1, $5::int) g`,
        [others.map((o) => o.id), IN_FLIGHT, prefix, status, n],
      );
    await children("done-", WorkItemStatus.completed, 6_000); // the history: children that ran and finished
    // …and tasks that ended (a table no read by id should scan).
    await t.database.pg!.query(
      `INSERT INTO "Task" ("id","ownerId","title","stage","createdAt","updatedAt")
       SELECT 'ended-' || g, 'alice', 'ended ' || g, 'completed', timezone('UTC', now()), timezone('UTC', now()) FROM generate_series(1, 20000) g`,
    );
    await t.database.pg!.query("ANALYZE"); // statistics from before the burst: no task is cancel_requested, few items queued
    await children("burst-", WorkItemStatus.queued, 1_500); // then a burst of scheduling: 1,500 children waiting for a worker
    for (const other of others) await requestCancellation(t.database, { taskId: other.id, actor });
    await requestCancellation(t.database, { taskId: task.id, actor });

    const taskRowsRead = (plan: PlanNode) => scansOf(plan, "Task").map(rowsRead);
    // The engine's start (its queued children leave dispatch, the run's lease is claimed), as the engine's connection
    // plans it after a few runs — here of two Stops that arrived together (one statement starts both runs).
    const neighbour = others[0].id;
    const [{ n: neighbourChildren }] = await t.database.pg!.query<{ n: number }>(`SELECT count(*)::int AS n FROM "WorkItem" WHERE "taskId" = $1`, [neighbour]);
    const start = await planOf("stopline_cancel_queued_claim_runs", true, () =>
      cancelQueuedAndClaimRunsOnPg(t.database.pg!, [neighbour, task.id].sort(), actor, { owner: "engine-a", leaseMs: 30_000 }),
    );
    expect(taskRowsRead(start.plan).length).toBeGreaterThan(0);
    for (const read of taskRowsRead(start.plan)) expect(read).toBeLessThanOrEqual(2); // the two tasks, each by its id
    // Their own children, read by task: none of the 1,500 others queued (the queue's index would read them all).
    expect(scansOf(start.plan, "WorkItem").length).toBeGreaterThan(0);
    for (const scan of scansOf(start.plan, "WorkItem")) expect(rowsRead(scan)).toBeLessThanOrEqual(2 + neighbourChildren + 2); // (+2: a plan's rows per loop are rounded)
    expect(start.result.get(task.id)?.engineOwner).toBe("engine-a");
    expect(start.result.get(neighbour)?.engineOwner).toBe("engine-a");
    for (const item of queued) expect((await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: item.id } })).status).toBe(WorkItemStatus.cancelled);
    expect(await t.database.prisma.workItem.count({ where: { taskId: neighbour, status: WorkItemStatus.queued } })).toBe(0);
    // What each pass reads before it plans — both Stops' reads in one statement (they were asked for together): each
    // task's own children and counts, read by its id.
    const facts = await planOf("stopline_boundary_facts_batch", true, () =>
      Promise.all([task.id, neighbour].map((id) => readBoundaryFacts(t.database, id, start.result.get(id)!))),
    );
    // (each child's index entries at most twice: the versions the start just superseded stay until VACUUM)
    for (const scan of scansOf(facts.plan, "WorkItem")) expect(rowsRead(scan)).toBeLessThanOrEqual(2 * (2 + neighbourChildren));
    const [mine, theirs] = facts.result;
    expect(mine!.found.map((i) => i.id).sort()).toEqual(queued.map((i) => i.id).sort()); // removed at the boundary: still planned for
    expect(theirs!.found.length).toBeGreaterThan(0);
    expect(theirs!.found.every((i) => i.taskId === neighbour)).toBe(true);
    expect([mine!.heldResources, mine!.effectsToAccountFor]).toEqual([0, 0]);

    // Another engine's start of the same task: its removal finds nothing left, its claim loses to the live lease.
    const second = await cancelQueuedAndClaimRunsOnPg(t.database.pg!, [task.id], actor, { owner: "engine-b", leaseMs: 30_000 });
    expect(second.get(task.id)).toBeNull();

    // The lease, claimed again by its holder (the maintenance pass's resume takes this path).
    const lease = await planOf("stopline_engine_claim_task", true, () => claimEngineRun(t.database, task.id, "engine-a"));
    for (const read of taskRowsRead(lease.plan)) expect(read).toBeLessThanOrEqual(1);
    expect((lease.result as { id: string } | null)?.id).toBe(task.id);

    // The quiet ends of both Stops: nothing in flight, both tasks settled in one statement, each read by its id.
    const settle = await planOf("stopline_settle_quietly_batch", true, () =>
      settleQuietlyOnPg(
        t.database.pg!,
        [task.id, neighbour].map((taskId) => ({ taskId, plan: { steps: [] }, planReason: null })),
        { busyStatuses: BUSY_STATUSES, openReviewStatuses: OPEN_REVIEW_STATUSES, actor },
      ),
    );
    for (const read of taskRowsRead(settle.plan)) expect(read).toBeLessThanOrEqual(2);
    expect([...settle.result].sort()).toEqual([task.id, neighbour].sort());
    for (const id of [task.id, neighbour]) {
      expect((await t.database.prisma.task.findUniqueOrThrow({ where: { id } })).stage).toBe(TaskStage.cancelled);
      // each with its own events, in order: planned, cancelled, settled
      const types = (await t.database.prisma.ledgerEvent.findMany({ where: { taskId: id, entityType: "task" }, orderBy: { seq: "asc" } })).map((e) => e.type);
      expect(types.slice(-3)).toEqual(["cancellation.planned", "task.cancelled", "cancellation.settled"]);
    }
    // Settled: a second quiet end of the same task applies to nothing.
    expect(
      (
        await settleQuietlyOnPg(t.database.pg!, [{ taskId: task.id, plan: { steps: [] }, planReason: null }], {
          busyStatuses: BUSY_STATUSES,
          openReviewStatuses: OPEN_REVIEW_STATUSES,
          actor,
        })
      ).size,
    ).toBe(0);

    // Two more Stops arriving together: their boundaries are one statement, each task locked and read by its id.
    const late = [
      await createTask(t.database, { title: "late one", ownerId: "alice" }, actor),
      await createTask(t.database, { title: "late two", ownerId: "alice" }, actor),
    ];
    const boundaries = await planOf("stopline_boundaries", true, () =>
      Promise.all(late.map((l) => requestCancellation(t.database, { taskId: l.id, reason: "mass", actor }))),
    );
    for (const read of taskRowsRead(boundaries.plan)) expect(read).toBeLessThanOrEqual(2);
    expect(boundaries.result.map((r) => r.kind === "boundary" && !r.boundary.alreadyRequested)).toEqual([true, true]);

    // Every compare-and-set on a task names its id and the stage it moves from (casUpdate, lib/ledger/write.ts); Prisma
    // sends it unnamed, planned with its values.
    const other = others[0].id;
    const cas = await explainPlan(
      t.database.pg!,
      `UPDATE "Task" SET "stage" = $1, "rowVersion" = "rowVersion" + 1 WHERE "id" = $2 AND "stage" = $3`,
      [TaskStage.cancelled, other, TaskStage.cancelRequested],
      { generic: false },
    );
    for (const read of taskRowsRead(cas)) expect(read).toBeLessThanOrEqual(1);
    await releaseEngineRun(t.database, task.id, "engine-a").catch(() => {});
  });

  it("20 Stops arriving together: one statement records their boundaries, no part of it read again per task, each answered with its own task", async () => {
    const tasks: { id: string }[] = [];
    for (let i = 0; i < 20; i++) tasks.push(await createTask(t.database, { title: `together ${i}`, ownerId: "alice" }, actor));
    const stops = await planOf("stopline_boundaries", true, () =>
      Promise.all(tasks.map((task) => requestCancellation(t.database, { taskId: task.id, reason: `stop ${task.id}`, actor }))),
    );
    // A CTE read once per row of another is a nested loop over two CTEs, quadratic in the batch (the plan's estimate of
    // every CTE is one row); the boundary is on the Stop request's path.
    expect(rereadCtes(stops.plan)).toEqual([]);
    for (const [i, result] of stops.result.entries()) {
      expect(result.kind).toBe("boundary");
      if (result.kind !== "boundary") continue;
      expect(result.boundary).toMatchObject({ taskId: tasks[i].id, reason: `stop ${tasks[i].id}`, intentVersion: 2, alreadyRequested: false });
    }
    // Stopped again, some of them with a task that never was: the first boundary stands, the unknown task is not found.
    const again = await Promise.allSettled([
      ...tasks.slice(0, 3).map((task) => requestCancellation(t.database, { taskId: task.id, reason: "again", actor })),
      requestCancellation(t.database, { taskId: "no-such-task", reason: "again", actor }),
    ]);
    for (const [i, settled] of again.slice(0, 3).entries()) {
      expect(settled.status).toBe("fulfilled");
      const result = (settled as PromiseFulfilledResult<Awaited<ReturnType<typeof requestCancellation>>>).value;
      expect(result.kind === "boundary" && result.boundary).toMatchObject({ taskId: tasks[i].id, reason: `stop ${tasks[i].id}`, alreadyRequested: true });
    }
    expect(again[3].status).toBe("rejected");
    const events = await t.database.prisma.ledgerEvent.findMany({
      where: { taskId: { in: tasks.map((task) => task.id) }, type: LedgerEvent.taskCancelRequested },
    });
    expect(events.map((e) => e.taskId).sort()).toEqual(tasks.map((task) => task.id).sort());
  });
});

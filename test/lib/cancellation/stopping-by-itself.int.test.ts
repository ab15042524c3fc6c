import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../lib/db/scratch-database";
import { countStoppingByItself, STOPPING_BY_ITSELF, stoppingByItselfSql } from "../../../lib/cancellation/steps/4-stop-running";
import { createTask } from "../../../lib/ledger/create-task";
import { Mechanism, WorkItemStatus } from "../../../lib/ledger/states";

// Step 4 waits for the children stopping by themselves. The rule is written twice — as a Prisma filter (SQLite, the
// scoped Stop) and as SQL (the count the passes of many Stops share on PostgreSQL) — so this reads every combination of
// the columns it looks at both ways, and through countStoppingByItself, and expects the same children each time.

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => t?.drop());

const statuses = [WorkItemStatus.running, WorkItemStatus.cancelling, WorkItemStatus.cancelled, WorkItemStatus.uncertain];
const mechanisms = [Mechanism.abortSignal, Mechanism.providerCancel, Mechanism.none];

describe("the children a Stop's pass waits for (stopping by themselves)", () => {
  it("the SQL rule and the Prisma rule pick the same children, for every combination of status, mechanism, withdrawn cancel and lease", async () => {
    const task = await createTask(t.database, { title: "stopping by itself", ownerId: "alice" }, "agent:test");
    const other = await createTask(t.database, { title: "another task", ownerId: "alice" }, "agent:test");
    let n = 0;
    for (const status of statuses)
      for (const mechanism of mechanisms)
        for (const withdrawn of [false, true])
          for (const leased of [false, true])
            for (const taskId of [task.id, other.id]) {
              n++;
              await t.database.prisma.workItem.create({
                data: {
                  id: `child-${n}`,
                  taskId,
                  kind: "local_worker",
                  toolName: "rule.tool",
                  correlationId: `child-${n}`,
                  status,
                  mechanism,
                  preparedIntentVersion: 1,
                  idempotencyKey: `child-${n}:key`,
                  cancelWithdrawnAt: withdrawn ? new Date() : null,
                  leaseToken: leased ? `lease-${n}` : null,
                  leaseExpiresAt: leased ? new Date(Date.now() + 60_000) : null,
                },
              });
            }
    const byPrisma = await t.database.prisma.workItem.findMany({ where: { taskId: task.id, ...STOPPING_BY_ITSELF }, select: { id: true } });
    const bySql = await t.database.prisma.$queryRawUnsafe<{ id: string }[]>(
      `SELECT w."id" FROM "WorkItem" w WHERE w."taskId" = '${task.id}' AND ${stoppingByItselfSql("w")}`,
    );
    expect(bySql.map((r) => r.id).sort()).toEqual(byPrisma.map((r) => r.id).sort());
    // Cancelling: the 4 abort-signal children (whatever their lease and withdrawal), and the provider-side and `none` ones
    // whose cancel was withdrawn while their worker holds the lease (2).
    expect(byPrisma).toHaveLength(6);
    // Asked together (one statement on PostgreSQL), each task gets its own count; a task with none reads 0.
    const [mine, theirs, none] = await Promise.all([
      countStoppingByItself(t.database, task.id),
      countStoppingByItself(t.database, other.id),
      countStoppingByItself(t.database, "no-such-task"),
    ]);
    expect([mine, theirs, none]).toEqual([6, 6, 0]);
  });
});

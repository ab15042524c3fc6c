import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, testEngine, type TestDatabase } from "../../../lib/db/scratch-database";
import { createTask } from "../../../lib/ledger/create-task";
import { heartbeatWorkItem } from "../../../lib/ledger/heartbeat-work-item";
import { checkpointOnPg } from "../../../lib/ledger/sql/checkpoint";
import { WorkItemStatus } from "../../../lib/ledger/states";
import { planOfCall, rowsRead, scansOf } from "../../support/explain-plan";

// A lease holder's own statements — the heartbeat and the checkpoint before an effect — name the item by id and its
// lease token. The token also matches the leased items' partial index (`leaseToken IS NOT NULL`), and statistics
// gathered before a burst call leases rare: read through that index, each heartbeat would read every lease in the
// cluster (a busy hour's, a mass Stop's). Each must read its own row only (issue 22 §5, the class of the mass-Stop plans).
// PostgreSQL 15 picks the primary key here today (checked with 6,000 and 200,000 finished items); this keeps it so.

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => t?.drop());

const actor = "agent:test";
const LEASED_ELSEWHERE = 1_500;

const planOf = <T>(name: string, call: () => Promise<T>) => planOfCall(t.database.pg!, name, call, { generic: true });

/** `n` work items of `taskId` named `prefix`-i, in `status`, leased to another worker when `leased`. */
const items = (taskId: string, prefix: string, status: string, n: number, leased: boolean) =>
  t.database.pg!.query(
    `INSERT INTO "WorkItem" ("id","taskId","kind","toolName","correlationId","status","preparedIntentVersion","mechanism","idempotencyKey",
       "leaseOwner","leaseToken","leaseExpiresAt","startedAt","createdAt","updatedAt")
     SELECT $2 || g, $1, 'local_worker', 'lease.tool', $2 || g, $3, 1, 'abort_signal', $2 || g || ':key',
       CASE WHEN $5 THEN 'another-worker' END, CASE WHEN $5 THEN gen_random_uuid()::text END,
       CASE WHEN $5 THEN timezone('UTC', now()) + interval '1 minute' END,
       timezone('UTC', now()), timezone('UTC', now()), timezone('UTC', now())
     FROM generate_series(1, $4::int) g`,
    [taskId, prefix, status, n, leased],
  );

describe.skipIf(testEngine() !== "postgres")("a lease holder's heartbeat and checkpoint read its own item, however many others are leased", () => {
  it("with 1,500 other items leased since the statistics were gathered, the heartbeat and the checkpoint each read one work item", async () => {
    const task = await createTask(t.database, { title: "one child among many leases", ownerId: "alice" }, actor);
    await items(task.id, "done-", WorkItemStatus.completed, 6_000, false); // the history: children that ran and finished
    await items(task.id, "mine-", WorkItemStatus.running, 1, true); // the child we hold
    await t.database.pg!.query("ANALYZE"); // statistics from before the burst: one lease in 6,001 items
    await items(task.id, "burst-", WorkItemStatus.running, LEASED_ELSEWHERE, true); // then a burst: 1,500 running elsewhere
    const [mine] = await t.database.pg!.query<{ id: string; leaseToken: string }>(`SELECT "id", "leaseToken" FROM "WorkItem" WHERE "id" = 'mine-1'`);

    const beat = await planOf("stopline_heartbeat", () => heartbeatWorkItem(t.database, { workItemId: mine.id, leaseToken: mine.leaseToken, actor }));
    expect(scansOf(beat.plan, "WorkItem").length).toBeGreaterThan(0);
    for (const scan of scansOf(beat.plan, "WorkItem")) expect(rowsRead(scan)).toBeLessThanOrEqual(1);
    expect(beat.result).toMatchObject({ status: WorkItemStatus.running, cancelRequested: false });

    const checkpoint = await planOf("stopline_checkpoint", () => checkpointOnPg(t.database.pg!, { workItemId: mine.id, leaseToken: mine.leaseToken, actor }));
    expect(scansOf(checkpoint.plan, "WorkItem").length).toBeGreaterThan(0);
    for (const scan of scansOf(checkpoint.plan, "WorkItem")) expect(rowsRead(scan)).toBeLessThanOrEqual(1);
    expect(checkpoint.result).toMatchObject({ passed: true });
    const passed = await t.database.prisma.ledgerEvent.count({ where: { workItemId: mine.id, type: "checkpoint.passed" } });
    expect(passed).toBe(1);
  });
});

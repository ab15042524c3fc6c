import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, testEngine, type TestDatabase } from "../../../lib/db/scratch-database";
import { requestCancellation } from "../../../lib/cancellation/steps/1-record-boundary";
import { createTask } from "../../../lib/ledger/create-task";
import { cancellationMetrics } from "../../../lib/metrics/cancellation-metrics";
import { explainPlan, rowsRead, scansOf } from "../../support/explain-plan";

// The metrics page refreshes every 15 s for as long as an operator keeps it open; a team keeps Stopline for a year.
// The figures cover the latest Stops, read newest first — not every Stop of the history on each refresh (issue 22 §3).

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => t?.drop());

const actor = "agent:metrics";

describe("cancellation metrics cover the latest Stops and say which", () => {
  it("with 5 Stops and a window of 3: the 3 newest are counted, their children only, and the window says older ones are left out", async () => {
    const tasks = [];
    for (let i = 0; i < 5; i++) {
      const task = await createTask(t.database, { title: `stopped ${i}`, ownerId: "alice" }, actor);
      await requestCancellation(t.database, { taskId: task.id, actor });
      // One finished child per task, each after its task's boundary: 1 ms, 2 ms, … so each Stop is told apart.
      await t.database.prisma.workItem.create({
        data: {
          taskId: task.id,
          kind: "local_worker",
          toolName: "metrics.tool",
          correlationId: `m-${i}`,
          idempotencyKey: `m-${i}:key`,
          status: "cancelled",
          preparedIntentVersion: 1,
          mechanism: "abort_signal",
          finishedAt: new Date(Date.now() + 60_000 * (i + 1)),
        },
      });
      tasks.push((await t.database.prisma.task.findUniqueOrThrow({ where: { id: task.id } }))!);
    }
    const newestFirst = [...tasks].sort((a, b) => b.cancelRequestedAt!.getTime() - a.cancelRequestedAt!.getTime() || (a.id < b.id ? 1 : -1));

    const m = await cancellationMetrics(t.database, { latest: 3 });
    expect(m.tasks.stopped).toBe(3);
    expect(m.action_cancellations.stopped.count).toBe(3); // the 2 oldest Stops' children are not read
    expect(m.window).toEqual({ latest: 3, since: null, from: newestFirst[2].cancelRequestedAt!.toISOString(), full: true });

    const all = await cancellationMetrics(t.database, { latest: 10 });
    expect(all.tasks.stopped).toBe(5);
    expect(all.action_cancellations.stopped.count).toBe(5);
    expect(all.window.full).toBe(false);

    // Exactly as many Stops as the window holds: nothing older is left out, and the window does not say so.
    const exactly = await cancellationMetrics(t.database, { since: newestFirst[2].cancelRequestedAt!, latest: 3 });
    expect(exactly.tasks.stopped).toBe(3);
    expect(exactly.window.full).toBe(false);

    const since = await cancellationMetrics(t.database, { since: newestFirst[1].cancelRequestedAt!, latest: 10 });
    expect(since.tasks.stopped).toBe(2);
    expect(since.window).toMatchObject({ since: newestFirst[1].cancelRequestedAt!.toISOString(), full: false });
  });

  it.skipIf(testEngine() !== "postgres")(
    "with 20,000 stopped tasks of history, the latest 1,000 are read from Task_stops_idx: about 1,000 task rows, not the history",
    async () => {
      await t.database.pg!.query(
        `INSERT INTO "Task" ("id","ownerId","title","stage","cancelRequestedAt","settledAt","createdAt","updatedAt")
         SELECT 'old-stop-' || g, 'owner', 'old', 'cancelled', ts, ts, ts, ts
         FROM generate_series(1, 20000) g, LATERAL (SELECT timezone('UTC', now()) - interval '300 days' + g * interval '1 minute' AS ts) x`,
      );
      // Never stopped: these must not be in the index at all.
      await t.database.pg!.query(
        `INSERT INTO "Task" ("id","ownerId","title","stage","createdAt","updatedAt")
         SELECT 'old-done-' || g, 'owner', 'old', 'completed', timezone('UTC', now()), timezone('UTC', now()) FROM generate_series(1, 20000) g`,
      );
      await t.database.pg!.query(`ANALYZE "Task"`);
      // The statement as Prisma sends it for cancellationMetrics' read of the latest Stops.
      const plan = await explainPlan(
        t.database.pg!,
        `SELECT "public"."Task"."id", "public"."Task"."stage", "public"."Task"."cancelRequestedAt" FROM "public"."Task"
         WHERE "public"."Task"."cancelRequestedAt" IS NOT NULL ORDER BY "public"."Task"."cancelRequestedAt" DESC, "public"."Task"."id" DESC LIMIT $1 OFFSET $2`,
        [1000, 0],
        { generic: false },
      );
      const scans = scansOf(plan, "Task");
      expect(scans.map((s) => s["Index Name"])).toEqual(["Task_stops_idx"]);
      expect(rowsRead(scans[0])).toBeLessThanOrEqual(1_000);
      const m = await cancellationMetrics(t.database);
      expect(m.tasks.stopped).toBe(1_000);
      expect(m.window.full).toBe(true);
    },
  );
});

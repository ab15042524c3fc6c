import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, testEngine, type TestDatabase } from "../../../lib/db/scratch-database";
import { createTask } from "../../../lib/ledger/create-task";
import { scheduleWorkItem } from "../../../lib/ledger/schedule-work-item";
import { ToolRegistry } from "../../../lib/tools/registry";
import { WorkerPool } from "../../../lib/workers/worker-pool";
import { recordStatements } from "../../support/explain-plan";

// A pool whose queue is empty: its children end one by one (a Stop's, or their own) — each report used to claim the
// slot's next item as well, and each such claim walked the queue's index for nothing (issue 22 §5).

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => t?.drop());

const actor = "agent:test";
const until = async (what: string, check: () => Promise<boolean>, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe("a pool whose queue is empty", () => {
  it("once a claim found the queue empty, children that end report without claiming; new work still starts at once", async () => {
    const release: (() => void)[] = [];
    const registry = new ToolRegistry().register({
      name: "idle.held",
      kind: "local_worker",
      risk: "low",
      commitsEffect: false,
      mechanism: "abort_signal",
      run: () => new Promise((resolve) => release.push(() => resolve({ done: true }))),
    });
    // The poll is far off: whatever starts below was woken by its own announcement.
    const pool = new WorkerPool({ database: t.database, registry, concurrency: 5, leaseMs: 30_000, pollMs: 60_000 });
    const task = await createTask(t.database, { title: "an empty queue", ownerId: "alice" }, actor);
    const schedule = () =>
      scheduleWorkItem(t.database, { taskId: task.id, kind: "local_worker", toolName: "idle.held", mechanism: "abort_signal", intentVersion: 1 }, actor);
    const statusOf = async (id: string) => (await t.database.prisma.workItem.findUniqueOrThrow({ where: { id } })).status;
    try {
      const first = [await schedule(), await schedule(), await schedule()];
      pool.start();
      await until("three children running", async () => release.length === 3);
      await new Promise((r) => setTimeout(r, 200)); // the idle slots' claims find the queue empty

      const sent = recordStatements(t.database.pg);
      for (const done of release.splice(0)) done();
      for (const item of first) await until(`${item.id} completed`, async () => (await statusOf(item.id)) === "completed");
      sent.stop();
      if (testEngine() === "postgres") {
        const claimStatements = sent.names.filter((name) => name.startsWith("stopline_reports_and_claims_"));
        expect(claimStatements.length).toBeGreaterThan(0);
        for (const name of claimStatements) expect(name).toMatch(/^stopline_reports_and_claims_0_/); // reports only: no claim
      }

      const later = await schedule();
      await until("the new child running", async () => (await statusOf(later.id)) === "running", 5_000);
      for (const done of release.splice(0)) done();
      await until("the new child completed", async () => (await statusOf(later.id)) === "completed");
    } finally {
      for (const done of release.splice(0)) done();
      await pool.stop();
    }
  });
});

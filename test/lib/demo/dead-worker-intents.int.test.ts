import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  bootDemoWorld,
  checkAgainstWitness,
  clearFaults,
  newTask,
  scheduleTool,
  setFaults,
  snapshot,
  stop,
  taskRow,
  until,
  type DemoWorld,
} from "../../support/demo-world";
import { createTestDatabase, type TestDatabase } from "../../../lib/db/scratch-database";
import { claimWorkItem } from "../../../lib/ledger/claim-work-item";
import { recordResourceIntents } from "../../../lib/ledger/resource-intents";

/**
 * Issue 19, random conformance SQLite seed 1209 #324: an export claimed, its resources written ahead and its start
 * sent — then its worker was killed before the answer came back. The Stop found the export's cancel unavailable and
 * marked the child uncertain, keeping the dead worker's lease (it might still report); the Stop settled saying "one
 * outcome is not yet confirmed" and nothing about the lock and temp file the service held. When the lease expired,
 * nothing asked the service what the call held: the settled task was never looked at again.
 *
 * The dead worker is played by the ledger calls a worker makes before its tool's request leaves (claim, intents),
 * then the start request itself — and nothing after: no answer is ever recorded. No worker pool runs.
 */

const LEASE_MS = 4_000; // outlives the Stop's pass, so that it settles while the dead worker's lease still looks live

let t: TestDatabase;
let world: DemoWorld;

beforeAll(async () => {
  t = await createTestDatabase();
  world = await bootDemoWorld(t.database, {
    tools: { callTimeoutMs: 3_000, pollMs: 20 },
    pool: { start: false, leaseMs: LEASE_MS, pollMs: 20 }, // the dead worker is played by hand
    concurrency: 1,
    engine: { verifyDelayMs: 30, settleTimeoutMs: 500, cancelAttempts: 2, cancelBackoffMs: 20, cancelTimeoutMs: 1_000, reconcileIntervalMs: 100 },
  });
});
afterEach(async () => {
  await clearFaults(world);
});
afterAll(async () => {
  await world?.close();
  await t?.drop();
});

describe("written ahead, and the worker died before the answer", () => {
  it("settled while the dead worker's lease still looked live: the summary says the lock and temp file may still be held; once the lease expires the service is asked, and they are verified released — never silence (SQLite seed 1209 #324)", async () => {
    await setFaults(world, "reports", { cancelUnavailable: true });
    const task = await newTask(world, "export, its worker killed after the start", "low");
    const scheduled = await scheduleTool(world, task.id, "reports.export_report", { rows: 500, rowMs: 10 }); // ~5 s at the service
    const item = await claimWorkItem(t.database, { workerId: "worker-killed", toolNames: ["reports.export_report"], leaseMs: LEASE_MS });
    expect(item?.id).toBe(scheduled.id);
    await recordResourceIntents(t.database, {
      workItemId: item!.id,
      leaseToken: item!.leaseToken!,
      types: ["lock", "temp_file"],
      actor: "worker:worker-killed",
    });
    const started = await fetch(`${world.demo.url}/reports/exports`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ idempotencyKey: item!.idempotencyKey, rows: 500, rowMs: 10 }),
    });
    expect(started.ok, await started.clone().text()).toBe(true);
    const { exportId } = (await started.json()) as { exportId: string };
    // (the worker is killed here: its answer never reaches the ledger)

    await stop(world, task.id);
    await until(`task ${task.id} settled`, async () => (await taskRow(world, task.id)).settledAt !== null, 10_000);
    const settled = await snapshot(world, task.id);
    const held = world.demo.db.prepare("SELECT lock_held FROM report_exports WHERE id = ?").get(exportId) as { lock_held: number };
    expect(held.lock_held, "the service still holds the export's lock when the Stop settles (the race of #324)").toBe(1);
    expect(settled.items[0].status).toBe("uncertain");
    expect(settled.items[0].leaseToken, "settled while the dead worker's lease still looked live").not.toBeNull();
    expect(["PARTIALLY_CANCELLED", "CANCELLATION_FAILED"]).toContain(settled.summary.status); // the export's cancel was refused
    if (process.env.FAULT_MATRIX_TRACE) console.log(settled.summary.user_message);
    expect(settled.summary.unconfirmed_resources?.map((r) => `${r.tool_call_id}:${r.type}`).sort()).toEqual([
      `${item!.correlationId}:lock`,
      `${item!.correlationId}:temp_file`,
    ]);
    expect(settled.summary.user_message).toMatch(/Two resources may still be held at a service/);
    checkAgainstWitness(settled); // the lock and temp file the service holds are in the summary

    // The lease runs out; the maintenance pass asks the service what the call holds, records it by its handles, and —
    // the export ending at the service — releases and verifies them.
    await until(
      "the intents settled by asking the service",
      async () => (await t.database.prisma.resourceIntent.findMany({ where: { workItemId: item!.id } })).every((i) => i.state !== "open"),
      LEASE_MS + 10_000,
    );
    const resolved = await snapshot(world, task.id);
    expect(resolved.summary.unconfirmed_resources).toEqual([]);
    checkAgainstWitness(resolved);
    await until(
      "the call's resources verified released",
      async () => {
        const rs = await t.database.prisma.resource.findMany({ where: { workItemId: item!.id } });
        return rs.length === 2 && rs.every((r) => r.state === "released");
      },
      20_000,
    );
    const after = await snapshot(world, task.id);
    expect(after.resources.map((r) => `${r.type}:${r.handle}`).sort()).toEqual([`lock:${exportId}`, `temp_file:/tmp/stopline-demo-${exportId}.csv`]);
    expect(after.witness.filter((w) => w.subject === exportId).map((w) => w.action)).toContain("lock_released");
    expect(after.summary.user_message).not.toMatch(/may still be held|could not be released/);
    checkAgainstWitness(after);
  });
});

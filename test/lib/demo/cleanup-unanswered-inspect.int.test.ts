import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootDemoWorld, checkAgainstWitness, itemRow, newTask, scheduleTool, snapshot, sleep, stop, until, type DemoWorld } from "../../support/demo-world";
import { startTap, type Tap } from "../../support/service-tap";
import { createTestDatabase, type TestDatabase } from "../../../lib/db/scratch-database";
import { claimWorkItem } from "../../../lib/ledger/claim-work-item";
import { checkpointWorkItem } from "../../../lib/ledger/checkpoint-work-item";
import { recordResourceIntents } from "../../../lib/ledger/resource-intents";
import { recoverExpiredLeases } from "../../../lib/ledger/recover-expired-leases";
import { resolveIntents } from "../../../lib/cancellation/resolve-intents";
import { LedgerEvent } from "../../../lib/ledger/events";
import { cleanupAndVerify } from "../../../lib/cancellation/steps/6-clean-up-and-verify";

/**
 * Step 6 (clean up and verify) must not release what a call holds while the call still runs at its service — the
 * release is refused ("still running; cancel it first") and the resource was recorded ORPHANED, "could not be
 * released", though the service released it itself a moment later when the call ended. The step asks the service
 * first (inspect) and waits while it says "running". An inspect that went unanswered (past cancelTimeoutMs: a loaded
 * machine) was taken as "it ended", and the cleanup ran under the running export: random conformance, SQLite seed
 * 1412 #33 (reports latency 295 ms, the worker killed after the Stop), a FALSE ALARM the replays did not reproduce.
 *
 * Deterministic here: the worker is played by hand (claim, checkpoint, intents, the export's start); the Stop lands,
 * the worker dies — its lease expires, the item is uncertain with no worker. The tools reach the service through a tap that holds the
 * step's inspect past its timeout. No engine runs: the step is called as the engine's Stop calls it.
 */

const CANCEL_TIMEOUT_MS = 300;

let t: TestDatabase;
let world: DemoWorld;
let tap: Tap;

beforeAll(async () => {
  t = await createTestDatabase();
  world = await bootDemoWorld(t.database, {
    via: async (demoUrl) => (tap = await startTap(demoUrl)).url,
    tools: { callTimeoutMs: 3_000, pollMs: 20 },
    pool: { start: false, leaseMs: 10_000, pollMs: 20 },
  });
  await world.engine.stop(); // no engine runs: the step below, called as the engine calls it, is the only one asking the service
});
afterAll(async () => {
  await world?.close();
  await tap?.close();
  await t?.drop();
});

/**
 * An export started by a worker played by hand (claim, checkpoint, intents, the start), a Stop, then the worker dies:
 * its lease runs out and the item is uncertain with no worker; what the call holds is recorded by its handles.
 */
async function exportOfADeadWorker(title: string) {
  const task = await newTask(world, title, "low");
  const scheduled = await scheduleTool(world, task.id, "reports.export_report", { rows: 300, rowMs: 10 });
  const claimed = await claimWorkItem(t.database, { workerId: "worker-killed", toolNames: ["reports.export_report"], leaseMs: 200 });
  expect(claimed?.id).toBe(scheduled.id);
  const item = claimed!;
  const holder = { workItemId: item.id, leaseToken: item.leaseToken!, actor: "worker:worker-killed" };
  await checkpointWorkItem(t.database, holder);
  await recordResourceIntents(t.database, { ...holder, types: ["lock", "temp_file"] });
  const started = await fetch(`${world.demo.url}/reports/exports`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ idempotencyKey: item.idempotencyKey, rows: 300, rowMs: 10 }), // ~3 s at the service: it outlasts the held inspect on a slow machine
  });
  expect(started.ok, await started.clone().text()).toBe(true);
  const { exportId } = (await started.json()) as { exportId: string };
  await stop(world, task.id);
  // (the worker dies here; its lease runs out and the item is uncertain: past its checkpoint, it may have started something)
  await sleep(250);
  expect((await recoverExpiredLeases(t.database)).uncertain).toEqual([item.id]);

  // What the call holds is asked of the service (written ahead) and recorded by its handles.
  await resolveIntents(t.database, world.registry, { taskId: task.id }, { cancelTimeoutMs: 2_000 });
  const recorded = await t.database.prisma.resource.findMany({ where: { workItemId: item.id } });
  expect(recorded.map((r) => `${r.type}:${r.handle}:${r.state}`).sort()).toEqual([
    `lock:${exportId}:held`,
    `temp_file:/tmp/stopline-demo-${exportId}.csv:held`,
  ]);

  return { task, item, exportId };
}

describe("step 6 and an inspect that goes unanswered", () => {
  it("the export still runs at its service and the first inspect times out: asked again, the step waits for the export to end — its lock and temp file verified released, never 'could not be released' (random conformance SQLite seed 1412 #33)", async () => {
    const { task, item, exportId } = await exportOfADeadWorker("export, its worker dead, the inspect slow");

    // The step's first inspect is held at the tap past its timeout; the export is still running at the service.
    const inspect = tap.hold("GET", /^\/reports\/exports\?idempotencyKey=/);
    const step = cleanupAndVerify(t.database, task.id, {
      registry: world.registry,
      verifyDelayMs: 30,
      cancelTimeoutMs: CANCEL_TIMEOUT_MS,
      settleTimeoutMs: 10_000,
    });
    await inspect.arrived;
    await sleep(CANCEL_TIMEOUT_MS + 200);
    const exportNow = () =>
      world.demo.db.prepare("SELECT status, lock_held FROM report_exports WHERE id = ?").get(exportId) as { status: string; lock_held: number };
    expect(exportNow(), "the inspect went unanswered while the export ran").toEqual({ status: "running", lock_held: 1 });
    inspect.release();
    await step;

    // Nothing was released under the running export: the service ended it and released its lock itself.
    const resources = await t.database.prisma.resource.findMany({ where: { workItemId: item.id } });
    expect(resources.map((r) => `${r.type}:${r.state}`).sort()).toEqual(["lock:released", "temp_file:released"]);
    const s = await snapshot(world, task.id);
    const actions = s.witness.filter((w) => w.subject === exportId).map((w) => w.action);
    expect(actions).toEqual(["export_started", "lock_acquired", "export_completed", "lock_released"]);
    expect(s.reviews.filter((v) => v.kind === "orphaned_resource")).toEqual([]);
    expect(s.summary.orphaned_resources).toEqual([]);
    expect(s.summary.user_message).not.toMatch(/could not be released/);
    // The task's steps say why the cleanup waited.
    const events = await t.database.prisma.ledgerEvent.findMany({ where: { taskId: task.id, type: LedgerEvent.cancellationStep }, orderBy: { seq: "asc" } });
    const steps = events.map((e) => e.reason ?? "");
    expect(steps).toContainEqual(expect.stringMatching(/^waiting: its service has not said whether the call still runs \(no answer within 300 ms\)/));
    expect(steps.filter((r) => /cleanup/.test(r) && /still running/.test(r))).toEqual([]);
    expect((await itemRow(world, item.id)).status).toBe("uncertain"); // its outcome is reconciliation's to establish, not this step's
    checkAgainstWitness(s);
  });

  it("the late pass (no wait: it runs after the Stop settled) gets no answer from the service: what the uncertain call holds is left to the next pass — not released under the running export, not orphaned — and released once the export has ended", async () => {
    const { task, item, exportId } = await exportOfADeadWorker("export, its worker dead, the late pass unanswered");
    const inspect = tap.hold("GET", /^\/reports\/exports\?idempotencyKey=/);
    const pass = cleanupAndVerify(t.database, task.id, { registry: world.registry, verifyDelayMs: 30, cancelTimeoutMs: CANCEL_TIMEOUT_MS }, undefined, "late");
    await inspect.arrived;
    await pass; // its inspect timed out
    inspect.release();
    const exportNow = () =>
      world.demo.db.prepare("SELECT status, lock_held FROM report_exports WHERE id = ?").get(exportId) as { status: string; lock_held: number };
    expect(exportNow().status, "the export still ran when the pass ended").toBe("running");
    const held = await t.database.prisma.resource.findMany({ where: { workItemId: item.id } });
    expect(held.map((r) => `${r.type}:${r.state}`).sort()).toEqual(["lock:held", "temp_file:held"]);
    const cleanups = await t.database.prisma.ledgerEvent.findMany({ where: { workItemId: item.id, type: LedgerEvent.cancellationStep } });
    expect(cleanups.filter((e) => (e.data as { action?: string }).action === "cleanup")).toEqual([]); // nothing released under it
    expect((await itemRow(world, item.id)).serviceRunningAt).toBeNull(); // not said to run: the service never said so

    // The export ends at the service; the next pass is answered, and what the call held is verified released.
    await until("the export ended at its service", () => exportNow().status === "completed", 10_000);
    await cleanupAndVerify(t.database, task.id, { registry: world.registry, verifyDelayMs: 30, cancelTimeoutMs: 2_000 }, undefined, "late");
    const resources = await t.database.prisma.resource.findMany({ where: { workItemId: item.id } });
    expect(resources.map((r) => `${r.type}:${r.state}`).sort()).toEqual(["lock:released", "temp_file:released"]);
    const s = await snapshot(world, task.id);
    expect(s.witness.filter((w) => w.subject === exportId).map((w) => w.action)).toEqual([
      "export_started",
      "lock_acquired",
      "export_completed",
      "lock_released",
    ]);
    expect(s.reviews.filter((v) => v.kind === "orphaned_resource")).toEqual([]);
    expect(s.summary.user_message).not.toMatch(/could not be released/);
    checkAgainstWitness(s);
  });
});

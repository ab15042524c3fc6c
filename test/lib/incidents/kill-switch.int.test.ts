import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CancellationEngine } from "../../../lib/cancellation/engine";
import { AppError } from "../../../lib/errors";
import { createTask } from "../../../lib/ledger/create-task";
import { LedgerEvent } from "../../../lib/ledger/events";
import { scheduleWorkItem } from "../../../lib/ledger/schedule-work-item";
import { startJobServer, type JobServer } from "../../../lib/conformance/http-job-server";
import { createTestDatabase, testEngine, type TestDatabase } from "../../../lib/db/scratch-database";
import { ToolRegistry } from "../../../lib/tools/registry";
import { getIncident } from "../../../lib/incidents/get-incident";
import { confirmLift, requestLift } from "../../../lib/incidents/lift-incident";
import { openIncident } from "../../../lib/incidents/open-incident";

/**
 * The incident kill switch with several worker PROCESSES (test/support/instance.ts, as `npm run worker` runs them)
 * polling one database while a tool is quarantined: from the switch's commit no item of the tool is claimed by any of
 * them (the claim statements check the switch), none is scheduled (409 quarantined with the reason), every queued one
 * never starts, every running one is stopped through its mechanism (its AbortSignal, in the process that runs it);
 * another tool goes on. Lifting takes two people.
 */
const SCRIPT = path.resolve(import.meta.dirname, "../../../test/support/instance.ts");
const TOOL = "multi.cooperative";
let t: TestDatabase;
let jobs: JobServer;
let engine: CancellationEngine;
const processes = new Map<string, ChildProcess>();

function startWorker(name: string): Promise<void> {
  const { NODE_CHANNEL_FD: _ipc, ...env } = process.env;
  const child = spawn(process.execPath, ["--import", "tsx", SCRIPT, "worker", name], {
    cwd: path.resolve(import.meta.dirname, "../../.."),
    stdio: ["ignore", "pipe", "inherit"],
    env: {
      ...env,
      DATABASE_URL: t.url,
      MULTI_JOB_URL: jobs.url,
      STOPLINE_PROCESS_NAME: name,
      STOPLINE_MAINTENANCE_MS: "250",
      STOPLINE_MAINTENANCE_LEASE_MS: "1500",
      STOPLINE_VERIFY_DELAY_MS: "50",
    },
  });
  processes.set(name, child);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start`)), 60_000);
    child.once("exit", (code) => reject(new Error(`${name} exited ${code} before it was ready`)));
    createInterface({ input: child.stdout! }).on("line", (line) => {
      if (line.startsWith("{")) clearTimeout(timer), resolve();
    });
  });
}

async function waitFor<T>(probe: () => Promise<T>, what: string, ms = 20_000): Promise<NonNullable<T>> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
/** How many claims of this tool's children the ledger holds (each claim writes one `work_item.claimed`). */
async function claimsOf(toolName: string): Promise<number> {
  const ids = (await t.database.prisma.workItem.findMany({ where: { toolName }, select: { id: true } })).map((i) => i.id);
  return t.database.prisma.ledgerEvent.count({ where: { type: LedgerEvent.workItemClaimed, workItemId: { in: ids } } });
}
const schedule = (taskId: string, toolName: string, mechanism: "abort_signal" | "provider_cancel", input?: unknown) =>
  scheduleWorkItem(
    t.database,
    { taskId, kind: mechanism === "abort_signal" ? "local_worker" : "remote_tool", toolName, mechanism, intentVersion: 1, input },
    "agent:kill-switch",
  );

describe(`the incident kill switch, with worker processes (${testEngine()})`, () => {
  beforeAll(async () => {
    t = await createTestDatabase();
    jobs = await startJobServer({ cancelMode: "honour" });
    await Promise.all([startWorker("worker-1"), startWorker("worker-2"), startWorker("worker-3")]);
    // This process records the switch; its engine runs the Stops the switch records (as the app that takes the request would).
    const registry = new ToolRegistry().register({
      name: TOOL,
      kind: "local_worker",
      risk: "low",
      commitsEffect: false,
      mechanism: "abort_signal",
      run: async () => null,
    });
    engine = new CancellationEngine(t.database, { registry, verifyDelayMs: 50, settleTimeoutMs: 3_000 }).start(60_000);
  }, 120_000);
  afterAll(async () => {
    await engine?.stop();
    for (const child of processes.values()) child.kill("SIGKILL");
    await jobs?.close();
    await t?.drop();
  });

  it("from the switch's commit nothing of the tool is claimed or scheduled anywhere; what ran is stopped; another tool goes on; lifting takes two people", async () => {
    // 3 processes × 4 slots: 12 running, the rest queued — spread over several tasks (several agents' work).
    const tasks = await Promise.all([1, 2, 3].map((n) => createTask(t.database, { title: `kill switch ${n}`, ownerId: `owner-${n}` }, "agent:kill-switch")));
    for (let i = 0; i < 30; i++) await schedule(tasks[i % 3].id, TOOL, "abort_signal");
    await waitFor(
      async () => (await t.database.prisma.workItem.count({ where: { toolName: TOOL, status: "running" } })) === 12 || null,
      "12 children running in the worker processes",
    );

    const opened = await openIncident(t.database, {
      targetKind: "tool",
      target: TOOL,
      reason: "the tool writes to the wrong tenant",
      actor: "operator:olivia",
      actorId: "person:olivia",
    });
    // ---- the switch has committed ----
    const claimedAtSwitch = await claimsOf(TOOL);
    expect(opened.alreadyOpen).toBe(false);
    expect(opened.stoppedWorkItems).toHaveLength(30);

    // No new work of the tool: a schedule is refused with the incident's reason…
    const refused = await scheduleWorkItem(
      t.database,
      { taskId: tasks[0].id, kind: "local_worker", toolName: TOOL, mechanism: "abort_signal", intentVersion: 1 },
      "agent:late",
    ).catch((e) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: "quarantined", details: { incidentId: opened.incident.id, reason: "the tool writes to the wrong tenant" } });
    // …while the workers keep polling: another tool's child is claimed and runs (the switch stops only its target).
    const other = await schedule(tasks[1].id, "multi.job", "provider_cancel", { steps: 2, stepMs: 20 });
    await waitFor(
      async () => (await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: other.id } })).status === "completed" || null,
      "another tool's child to complete",
    );

    // Every queued child of the tool never started; every running one was stopped in its worker process.
    await waitFor(
      async () => (await t.database.prisma.workItem.count({ where: { toolName: TOOL, status: { in: ["queued", "running", "cancelling"] } } })) === 0 || null,
      "every child of the tool to end",
    );
    const ended = await t.database.prisma.workItem.findMany({ where: { toolName: TOOL } });
    expect(ended.filter((i) => i.startedAt === null).every((i) => i.status === "cancelled")).toBe(true);
    expect(ended.filter((i) => i.startedAt === null)).toHaveLength(18);
    expect(
      ended
        .filter((i) => i.startedAt !== null)
        .map((i) => i.status)
        .every((s) => ["cancelled", "cancelled_incomplete"].includes(s)),
    ).toBe(true);
    expect(ended.every((i) => i.stopIncidentId === opened.incident.id)).toBe(true);
    // A queued child that slipped past the schedule's check (as one racing the commit on another app could): the
    // workers' claims refuse it themselves, and the maintenance sweep stops it — it never starts.
    const stray = await t.database.prisma.workItem.create({
      data: {
        taskId: tasks[2].id,
        kind: "local_worker",
        toolName: TOOL,
        mechanism: "abort_signal",
        correlationId: "stray",
        idempotencyKey: `${tasks[2].id}:stray`,
        preparedIntentVersion: 1,
        status: "queued",
      },
    });
    const strayEnded = await waitFor(async () => {
      const row = await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: stray.id } });
      return row.status !== "queued" ? row : null;
    }, "the sweep to stop the stray child");
    expect(strayEnded).toMatchObject({ status: "cancelled", startedAt: null, stopIncidentId: opened.incident.id });
    // Nothing of the tool was claimed after the switch's commit, by any process.
    expect(await claimsOf(TOOL)).toBe(claimedAtSwitch);

    // The incident page's data: every task touched, each step's outcome, nothing still stopping.
    const detail = await waitFor(async () => {
      const d = await getIncident(t.database, opened.incident.id);
      return d.counts.stillStopping === 0 ? d : null;
    }, "the incident's Stops to settle");
    expect(detail.counts).toMatchObject({ tasks: 3, steps: 31 });
    expect(new Set(detail.tasks.flatMap((x) => x.steps.map((s) => s.outcome.kind)))).toEqual(new Set(["never_started", "stopped"]));
    // The tasks themselves go on (their agents decide): the switch stopped the tool's steps, not the tasks.
    expect((await t.database.prisma.task.findMany({ where: { id: { in: tasks.map((x) => x.id) } } })).every((x) => x.cancelRequestedAt === null)).toBe(true);

    // A second switch on the same tool changes nothing.
    expect(await openIncident(t.database, { targetKind: "tool", target: TOOL, reason: "again", actor: "operator:olivia" })).toMatchObject({
      alreadyOpen: true,
      incident: { id: opened.incident.id },
    });

    // Lifting: asked by one operator; the same person cannot confirm; until confirmed the switch stays on.
    await requestLift(t.database, { incidentId: opened.incident.id, reason: "tenant routing fixed", actor: "operator:olivia", actorId: "person:olivia" });
    await expect(confirmLift(t.database, { incidentId: opened.incident.id, actor: "operator:olivia", actorId: "person:olivia" })).rejects.toMatchObject({
      code: "forbidden",
    });
    await expect(schedule(tasks[0].id, TOOL, "abort_signal")).rejects.toMatchObject({ code: "quarantined" });
    await confirmLift(t.database, { incidentId: opened.incident.id, actor: "operator:pat", actorId: "person:pat" });
    const events = await t.database.prisma.ledgerEvent.findMany({ where: { entityType: "incident", entityId: opened.incident.id }, orderBy: { seq: "asc" } });
    expect(events.map((e) => [e.type, e.actor])).toEqual([
      [LedgerEvent.incidentOpened, "operator:olivia"],
      [LedgerEvent.incidentLiftRequested, "operator:olivia"],
      [LedgerEvent.incidentLifted, "operator:pat"],
    ]);
    // From the lift's commit the tool may start again.
    const again = await schedule(tasks[0].id, TOOL, "abort_signal");
    await waitFor(
      async () => (await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: again.id } })).status === "running" || null,
      "the tool to run again after the lift",
    );
  }, 120_000);
});

import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auth } from "../../../lib/auth/better-auth";
import { demoAccounts, seedDemoAccounts } from "../../../lib/auth/seed-demo-accounts";
import { createApiToken } from "../../../lib/auth/tokens";
import { CancellationEngine } from "../../../lib/cancellation/engine";
import { requestCancellation } from "../../../lib/cancellation/steps/1-record-boundary";
import type { EngineOptions } from "../../../lib/cancellation/engine-options";
import { createTask } from "../../../lib/ledger/create-task";
import { finishTask, TaskEnding } from "../../../lib/ledger/finish-task";
import { scheduleWorkItem } from "../../../lib/ledger/schedule-work-item";
import { call, json } from "../../support/api-client";
import { FakeService } from "../../support/fake-service";
import { crmCreateTool, remoteJobTool, reportTool } from "../../support/fake-tools";
import { createTestDatabase, type TestDatabase } from "../../../lib/db/scratch-database";
import type { ToolDefinition } from "../../../lib/tools/contract";
import { ToolRegistry } from "../../../lib/tools/registry";
import { WorkerPool } from "../../../lib/workers/worker-pool";
import { archiveFiles, newArchivePath, PENDING, pendingArchives, readArchive, writePendingArchive } from "../../../lib/retention/archive-file";
import { auditOfArchive } from "../../../lib/retention/archive-audit";
import { archiveSettledTasks } from "../../../lib/retention/archive-settled-tasks";
import { auditToCsv } from "../../../lib/audit/render";
import { commitArchive } from "../../../lib/retention/commit-archive";
import { exportTasks } from "../../../lib/retention/export-tasks";
import { retentionPolicy, type RetentionPolicy } from "../../../lib/retention/policy";

/**
 * Retention end to end, on the real ledger (SQLite and PostgreSQL): tasks settled by the real engine and worker pool
 * (tools against the in-memory FakeService), then the retention pass. Each scenario reads back the LEDGER (what left,
 * what stayed, the ArchivedTask rows) and the ARCHIVE FILE itself (gunzipped, line by line) — and what support reads
 * (GET /api/audit, GET /api/tasks/{id}).
 */
const ENGINE = { verifyDelayMs: 30, settleTimeoutMs: 1_000, cancelAttempts: 2, cancelBackoffMs: 10 } satisfies Omit<EngineOptions, "registry">;
const actor = "agent:retention-test";
/** The owner: the demo account of a person (role user), signed in as the browser does. */
const OWNER_EMAIL = "user@stopline.local";
let OWNER = "";
let ownerCookie = "";
const ORIGIN = "http://localhost:3000";

let t: TestDatabase;
let tempDir: string;
let archiveDir: string;
let admin = "";
const stops: (() => Promise<void>)[] = [];
const services: FakeService[] = [];
/** The tasks of each scenario. */
const ids = { stopped: "", completed: "", openReview: "", orphaned: "", uncertain: "", young: "" };
/** The retention cutoff for the pass: after the old tasks settled, before the young one did. */
let cutoffMs = 0;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function waitFor<T>(probe: () => Promise<T>, what: string, timeoutMs = 8_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(15);
  }
}
const item = (id: string) => t.database.prisma.workItem.findUniqueOrThrow({ where: { id } });
const statusIs = (id: string, ...s: string[]) =>
  waitFor(async () => s.includes((await item(id)).status), `${id} to be ${s.join("/")}`).catch(async (e) => {
    throw new Error(`${e.message}; it is ${JSON.stringify(await item(id))}`);
  });
const settled = (taskId: string) =>
  waitFor(async () => (await t.database.prisma.task.findUnique({ where: { id: taskId } }))?.settledAt, `task ${taskId} to settle`);

function boot(tools: ToolDefinition<any, any>[]) {
  const registry = new ToolRegistry();
  for (const tool of tools) registry.register(tool);
  const pool = new WorkerPool({ database: t.database, registry, concurrency: 8, pollMs: 15 }).start();
  const engine = new CancellationEngine(t.database, { registry, ...ENGINE }).start(60_000);
  stops.push(
    () => pool.stop(),
    () => engine.stop(),
  );
  return engine;
}
const service = () => {
  const s = new FakeService();
  services.push(s);
  return s;
};
const newTask = (title: string) => createTask(t.database, { title, ownerId: OWNER, conversationId: `conv-${title.replace(/\W+/g, "-")}` }, actor);
const schedule = (taskId: string, tool: ToolDefinition<any, any>, input?: unknown) =>
  scheduleWorkItem(
    t.database,
    { taskId, kind: tool.kind, toolName: tool.name, mechanism: tool.mechanism, commitsEffect: tool.commitsEffect, intentVersion: 1, input },
    actor,
  );
async function stopAndSettle(engine: CancellationEngine, taskId: string) {
  await requestCancellation(t.database, { taskId, reason: "user pressed Stop", actor: `user:${OWNER_EMAIL}` });
  await new Promise((r) => setImmediate(r));
  await engine.run(taskId);
  await settled(taskId);
}
const policy = (over: Partial<RetentionPolicy> = {}): RetentionPolicy => ({
  ...retentionPolicy({ STOPLINE_RETENTION_DAYS: "1", STOPLINE_ARCHIVE_DIR: archiveDir }),
  ...over,
});
/** A pass whose cutoff is `cutoffMs` exactly: `days` is derived from the instant the pass runs. */
const passAt = (over: Partial<RetentionPolicy> = {}, dryRun = false) => {
  const now = new Date();
  return archiveSettledTasks(t.database, policy({ days: (now.getTime() - cutoffMs) / 86_400_000, ...over }), { now, dryRun });
};
const hot = async (taskId: string) => ({
  task: await t.database.prisma.task.count({ where: { id: taskId } }),
  workItems: await t.database.prisma.workItem.count({ where: { taskId } }),
  resources: await t.database.prisma.resource.count({ where: { taskId } }),
  sideEffects: await t.database.prisma.sideEffect.count({ where: { taskId } }),
  reviewItems: await t.database.prisma.reviewItem.count({ where: { taskId } }),
  events: await t.database.prisma.ledgerEvent.count({ where: { taskId } }),
});

beforeAll(async () => {
  t = await createTestDatabase();
  t.install();
  tempDir = mkdtempSync(path.join(os.tmpdir(), "stopline-archive-"));
  archiveDir = path.join(tempDir, "archive"); // created by the first pass that writes
  admin = (await createApiToken(t.database, { name: "admin-retention", role: "admin" })).token;
  await seedDemoAccounts(t.database);
  const account = demoAccounts().find((a) => a.email === OWNER_EMAIL)!;
  OWNER = (await t.database.prisma.user.findUniqueOrThrow({ where: { email: OWNER_EMAIL } })).id;
  const signIn = await auth(t.database).handler(
    new Request(`${ORIGIN}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: ORIGIN },
      body: JSON.stringify({ email: account.email, password: account.password }),
    }),
  );
  expect(signIn.status, await signIn.clone().text()).toBe(200);
  ownerCookie = signIn.headers.get("set-cookie")!.split(";")[0];

  const clean = service();
  const faulty = { review: service(), orphan: service(), uncertain: service() };
  faulty.review.faults.acceptThenTimeout = true;
  faulty.orphan.faults.neverReleaseLock = true;
  faulty.uncertain.faults.cancelUnavailable = true;
  const tools = {
    report: reportTool(clean, { name: "r.report", steps: 500, stepMs: 10 }),
    crm: crmCreateTool(clean, { name: "r.crm_create" }),
    crmLost: crmCreateTool(faulty.review, { name: "r.crm_lost_answer" }),
    stuckLock: reportTool(faulty.orphan, { name: "r.report_stuck_lock", steps: 500, stepMs: 10 }),
    job: remoteJobTool(faulty.uncertain, { name: "r.job", steps: 1_000, stepMs: 20 }),
  };
  const engine = boot(Object.values(tools));

  // Old, stopped cleanly: a report holding a lock, stopped, the lock verified released.
  const stopped = await newTask("stopped report");
  ids.stopped = stopped.id;
  const report = await schedule(stopped.id, tools.report);
  await clean.until((s) => s.count("work.step", report.correlationId) >= 1);
  await stopAndSettle(engine, stopped.id);

  // Old, completed by the agent: a CRM record for a customer (personal data in the step's input and the effect).
  const completed = await newTask("crm for ada");
  ids.completed = completed.id;
  const crm = await schedule(completed.id, tools.crm, { name: "Ada Lovelace", email: "ada.lovelace@example.com" });
  await statusIs(crm.id, "completed");
  await finishTask(t.database, { taskId: completed.id, ending: TaskEnding.completed, actor });

  // Old, settled, but a person still has to decide: the record was created, its answer lost, compensation to approve.
  const review = await newTask("crm answer lost");
  ids.openReview = review.id;
  const lost = await schedule(review.id, tools.crmLost, { name: "Grace Hopper" });
  await statusIs(lost.id, "submitted", "uncertain"); // the answer is lost: the worker cannot tell whether it took effect
  await stopAndSettle(engine, review.id);

  // Old, settled, a lock that could not be released: an orphaned resource.
  const orphan = await newTask("report with a stuck lock");
  ids.orphaned = orphan.id;
  const stuck = await schedule(orphan.id, tools.stuckLock);
  await faulty.orphan.until((s) => s.count("work.step", stuck.correlationId) >= 1);
  await stopAndSettle(engine, orphan.id);

  // Old, settled, a child whose outcome is unknown: its cancel endpoint was down.
  const uncertain = await newTask("research job");
  ids.uncertain = uncertain.id;
  const job = await schedule(uncertain.id, tools.job);
  await statusIs(job.id, "submitted");
  await stopAndSettle(engine, uncertain.id);

  cutoffMs = Date.now();
  await sleep(30);
  // Young: completed after the cutoff.
  const young = await newTask("young crm");
  ids.young = young.id;
  const youngCrm = await schedule(young.id, tools.crm, { name: "Young One" });
  await statusIs(youngCrm.id, "completed");
  await finishTask(t.database, { taskId: young.id, ending: TaskEnding.completed, actor });

  for (const stop of stops.splice(0).reverse()) await stop();
  // The preconditions each scenario names, as the ledger holds them.
  expect((await t.database.prisma.reviewItem.findMany({ where: { taskId: ids.openReview } })).map((r) => r.status)).toContain("open");
  expect((await t.database.prisma.resource.findMany({ where: { taskId: ids.orphaned } })).map((r) => r.state)).toEqual(["orphaned"]);
  expect((await t.database.prisma.workItem.findMany({ where: { taskId: ids.uncertain } })).map((w) => w.status)).toEqual(["uncertain"]);
  expect((await t.database.prisma.resource.findMany({ where: { taskId: ids.stopped } })).map((r) => r.state)).toEqual(["released"]);
  expect((await t.database.prisma.sideEffect.findMany({ where: { taskId: ids.completed } })).map((s) => s.outcome)).toEqual(["committed"]);
}, 60_000);
afterAll(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
  for (const s of services) s.dispose();
  await t?.drop();
  if (tempDir) rmSync(tempDir, { recursive: true, force: true });
});

const ROOT = path.resolve(import.meta.dirname, "../../..");

describe("retention (STOPLINE_RETENTION_DAYS)", () => {
  it("unset keeps every task: nothing is read, written or deleted", async () => {
    const before = await t.database.prisma.task.count();
    const run = await archiveSettledTasks(t.database, retentionPolicy({ STOPLINE_ARCHIVE_DIR: archiveDir }));
    expect(run).toMatchObject({ policy: "forever", archived: 0, files: [] });
    expect(await t.database.prisma.task.count()).toBe(before);
    expect(existsSync(archiveDir)).toBe(false);
  });

  it("a dry run names the old settled tasks with nothing left to decide, and writes nothing", async () => {
    const run = await passAt({}, true);
    expect(run.wouldArchive!.map((x) => x.id).sort()).toEqual([ids.stopped, ids.completed].sort());
    expect(existsSync(archiveDir)).toBe(false);
    expect(await t.database.prisma.archivedTask.count()).toBe(0);
  });

  it("old settled tasks leave the hot tables after their audit export is written; the rest stay", async () => {
    const before = { stopped: await hot(ids.stopped), completed: await hot(ids.completed) };
    const auditBefore = await json(await call("GET", `/api/audit?taskId=${ids.completed}`, { token: admin }));
    const events = await t.database.prisma.ledgerEvent.findMany({ where: { taskId: { in: [ids.stopped, ids.completed] } }, orderBy: { seq: "asc" } });
    const run = await passAt();
    expect(run.archived).toBe(2);
    expect(run.files).toHaveLength(1);
    const file = run.files[0].path;
    expect(path.dirname(file)).toBe(archiveDir);
    expect(readdirSync(archiveDir)).toEqual([path.basename(file)]); // no .pending left
    expect(statSync(file).mode & 0o777).toBe(0o600); // personal data: the server's account only
    expect(statSync(archiveDir).mode & 0o777).toBe(0o700);

    // ledger: the two are gone from every hot table, each recorded once, naming the file
    for (const id of [ids.stopped, ids.completed])
      expect(await hot(id)).toEqual({ task: 0, workItems: 0, resources: 0, sideEffects: 0, reviewItems: 0, events: 0 });
    const rows = await t.database.prisma.archivedTask.findMany({ orderBy: { title: "asc" } });
    expect(rows.map((r) => ({ taskId: r.taskId, title: r.title, ownerId: r.ownerId, stage: r.stage, archivePath: r.archivePath }))).toEqual([
      { taskId: ids.completed, title: "crm for ada", ownerId: OWNER, stage: "completed", archivePath: file },
      { taskId: ids.stopped, title: "stopped report", ownerId: OWNER, stage: "cancelled", archivePath: file },
    ]);
    // each row keeps the seq range of the events that left with it (an event stream resumed from one is told so)
    for (const r of rows) {
      const seqs = events.filter((e) => e.taskId === r.taskId).map((e) => e.seq);
      expect([r.firstEventSeq, r.lastEventSeq]).toEqual([Math.min(...seqs), Math.max(...seqs)]);
    }
    // the ones with something left to decide, and the young one, are all still there
    expect((await hot(ids.openReview)).task).toBe(1);
    expect((await hot(ids.orphaned)).task).toBe(1);
    expect((await hot(ids.uncertain)).task).toBe(1);
    expect((await hot(ids.young)).task).toBe(1);

    // the archive file, read back: everything that left is in it, as it was
    const archive = await readArchive(file);
    expect(archive.header).toMatchObject({ type: "archive", version: 1, provider: t.database.provider, cutoff: new Date(cutoffMs).toISOString() });
    expect(archive.header.taskIds.sort()).toEqual([ids.stopped, ids.completed].sort());
    const line = (id: string) => archive.tasks.find((x) => x.task.id === id)!;
    const stopped = line(ids.stopped);
    expect(stopped.task).toMatchObject({ title: "stopped report", stage: "cancelled", cancelReason: "user pressed Stop" });
    expect(stopped.workItems).toHaveLength(before.stopped.workItems);
    expect(stopped.resources.map((r) => r.state)).toEqual(["released"]);
    expect(stopped.events.map((e) => e.seq)).toEqual(events.filter((e) => e.taskId === ids.stopped).map((e) => e.seq));
    expect(stopped.events.map((e) => e.type)).toEqual(
      expect.arrayContaining(["task.created", "task.cancel_requested", "resource.released", "cancellation.settled"]),
    );
    expect(stopped.fingerprint.events).toBe(before.stopped.events);
    const completed = line(ids.completed);
    expect(completed.workItems[0]).toMatchObject({
      toolName: "r.crm_create",
      status: "completed",
      input: { name: "Ada Lovelace", email: "ada.lovelace@example.com" },
    });
    expect(completed.sideEffects).toEqual([expect.objectContaining({ outcome: "committed", description: 'CRM contact "Ada Lovelace"' })]);
    expect(completed.events).toHaveLength(before.completed.events);
    // what support's audit showed for it
    const audit = completed.audit as { task: { outcomes: { kind: string; label: string }[] }; effects: { outcome: string; operationId: string }[] };
    expect(audit.task.outcomes.map((o) => o.kind)).toEqual(["completed"]);
    expect(audit.effects).toEqual([expect.objectContaining({ outcome: "committed", operationId: completed.sideEffects[0].operationId })]);

    // the archive reader gives back exactly what support's audit showed for it, from the file alone
    const read = auditOfArchive(archive, [ids.completed]);
    expect({ tasks: read.tasks, effects: read.effects, compensations: read.compensations, uncertain: read.uncertain }).toEqual({
      tasks: auditBefore.tasks,
      effects: auditBefore.effects,
      compensations: auditBefore.compensations,
      uncertain: auditBefore.uncertain,
    });
    expect(
      auditOfArchive(archive)
        .tasks.map((x) => x.id)
        .sort(),
    ).toEqual([ids.stopped, ids.completed].sort());
    expect(() => auditOfArchive(archive, ["never-was"])).toThrow(/the archive holds no task never-was/);
    // … and so does `npm run retention -- --read`, as the audit's CSV or JSON
    const cli = (...args: string[]) => spawnSync(process.execPath, ["--import", "tsx", "scripts/retention.ts", ...args], { cwd: ROOT, encoding: "utf8" });
    const asJson = cli("--read", file, "--task", ids.completed, "--format", "json");
    expect(asJson.status).toBe(0);
    expect(JSON.parse(asJson.stdout).effects).toEqual(auditBefore.effects);
    const asCsv = cli("--read", file);
    expect(asCsv.status).toBe(0);
    expect(asCsv.stdout).toBe(auditToCsv(auditOfArchive(archive)));
    expect(cli("--read", path.join(archiveDir, "missing.jsonl.gz")).status).toBe(1);
    expect(cli("--read").status).toBe(2);
    expect(cli("--read", file, "--format", "xml").status).toBe(2);

    // a second pass finds nothing more to do
    const again = await passAt();
    expect(again).toMatchObject({ archived: 0, files: [], recovered: 0 });
    expect(readdirSync(archiveDir)).toHaveLength(1);
  });

  it("events stay append-only: an event of a task still in the ledger cannot be deleted or changed", async () => {
    const seq = (await t.database.prisma.ledgerEvent.findFirstOrThrow({ where: { taskId: ids.young } })).seq;
    await expect(t.database.prisma.ledgerEvent.delete({ where: { seq } })).rejects.toThrow(/append-only/);
    await expect(t.database.prisma.ledgerEvent.update({ where: { seq }, data: { reason: "edited" } })).rejects.toThrow(/append-only/);
  });

  it("support's audit says plainly that older history was archived, when and where; a read of an archived task says so", async () => {
    const [row] = await t.database.prisma.archivedTask.findMany({ take: 1 });
    const res = await call("GET", `/api/audit?user=${encodeURIComponent(OWNER_EMAIL)}`, { token: admin });
    expect(res.status).toBe(200);
    const report = await json(res);
    // the tasks still in the ledger, and one line for the archive file
    expect(report.tasks.map((x: { id: string }) => x.id).sort()).toEqual([ids.openReview, ids.orphaned, ids.uncertain, ids.young].sort());
    expect(report.archived).toHaveLength(1);
    const day = (d: Date | number) => new Date(d).toISOString().slice(0, 10);
    const settledBefore = day(Math.floor(cutoffMs / 86_400_000) * 86_400_000 + 86_400_000);
    expect(report.archived[0]).toMatchObject({ archivePath: row.archivePath, taskCount: 2 });
    expect(report.archived[0].line).toBe(
      `Older history (2 tasks settled before ${settledBefore}) was archived on ${day(row.archivedAt)} to ${row.archivePath}.`,
    );
    // the CSV export carries the same words
    const csv = await (await call("GET", `/api/audit?user=${encodeURIComponent(OWNER_EMAIL)}&format=csv`, { token: admin })).text();
    expect(csv.split("\r\n").filter((l) => l.startsWith("archived,"))).toEqual([expect.stringContaining(report.archived[0].line)]);
    // one task by id: no task row, the archive line for it
    const one = await json(await call("GET", `/api/audit?taskId=${ids.completed}`, { token: admin }));
    expect(one.tasks).toEqual([]);
    expect(one.archived.map((a: { taskCount: number; archivePath: string }) => [a.taskCount, a.archivePath])).toEqual([[1, row.archivePath]]);
    // another person's search shows nothing of Rita's archive
    expect((await json(await call("GET", "/api/audit?user=someone-else", { token: admin }))).archived).toEqual([]);

    // GET /api/tasks/{id}: 404 that says when and where
    const gone = await call("GET", `/api/tasks/${ids.completed}`, { token: admin });
    expect(gone.status).toBe(404);
    const body = await json(gone);
    const completedRow = await t.database.prisma.archivedTask.findUniqueOrThrow({ where: { taskId: ids.completed } });
    expect(body.error.message).toBe(
      `task ${ids.completed} is no longer in the ledger: it settled on ${day(completedRow.settledAt)} and, under the retention policy, was archived on ${day(row.archivedAt)} to ${row.archivePath}.`,
    );
    expect(body.error.details.archived).toEqual({
      archivedAt: completedRow.archivedAt.toISOString(),
      settledAt: completedRow.settledAt.toISOString(),
      archivePath: row.archivePath,
    });
    // the owner (a person: owner-scoped) is told it was archived, without the server's path
    const asOwner = { headers: { cookie: ownerCookie, origin: ORIGIN, host: "localhost:3000", "sec-fetch-site": "same-origin" } };
    const own = await call("GET", `/api/tasks/${ids.completed}`, asOwner);
    expect(own.status).toBe(404);
    const ownBody = await json(own);
    expect(ownBody.error.message).toBe(
      `task ${ids.completed} is no longer in the ledger: it settled on ${day(completedRow.settledAt)} and, under the retention policy, was archived on ${day(row.archivedAt)}; ask support for its audit export.`,
    );
    expect(JSON.stringify(ownBody)).not.toContain(archiveDir);
    // another person learns nothing of it: the plain 404 of a task that does not exist
    await t.database.prisma.archivedTask.update({ where: { taskId: ids.completed }, data: { ownerId: "someone-else" } });
    expect((await json(await call("GET", `/api/tasks/${ids.completed}`, asOwner))).error.message).toBe(`task ${ids.completed} not found`);
    await t.database.prisma.archivedTask.update({ where: { taskId: ids.completed }, data: { ownerId: OWNER } });
    // an id that never existed is a plain 404
    expect((await json(await call("GET", "/api/tasks/never-was", { token: admin }))).error.message).toBe("task never-was not found");
  });

  it("an event stream resumed from an archived event is told it was archived (410), not that the id never existed", async () => {
    const row = await t.database.prisma.archivedTask.findUniqueOrThrow({ where: { taskId: ids.stopped } });
    const resumeFrom = (id: number) => call("GET", "/api/events", { token: admin, headers: { "last-event-id": String(id) } });
    const archived = await resumeFrom(row.firstEventSeq!);
    expect(archived.status).toBe(410);
    const body = await json(archived);
    expect(body.error).toMatchObject({ code: "gone", details: { field: "Last-Event-ID", archivedAt: row.archivedAt.toISOString() } });
    expect(body.error.message).toBe(
      `Last-Event-ID ${row.firstEventSeq} is an event of a task archived on ${row.archivedAt.toISOString().slice(0, 10)} (the retention policy): older history has left the ledger — reconnect without Last-Event-ID to follow from now; support's audit says where the archive is`,
    );
    // an id no event ever had is still a plain 400
    const head = (await t.database.prisma.ledgerEvent.findFirstOrThrow({ orderBy: { seq: "desc" } })).seq;
    const unknown = await resumeFrom(head + 1_000);
    expect(unknown.status).toBe(400);
    expect((await json(unknown)).error.message).toBe(`Last-Event-ID ${head + 1_000} is not an event of this ledger`);
    // an event still here resumes as ever
    const ok = await resumeFrom(head);
    expect(ok.status).toBe(200);
    await ok.body?.cancel();
  });

  it("a pass that stopped after its file was written and before its transaction: the next pass finishes that file, once", async () => {
    // The open review is decided; the task may now leave. Simulate the crash: the pass's first two steps only.
    const open = await t.database.prisma.reviewItem.findMany({ where: { taskId: ids.openReview, status: "open" } });
    expect(open).toHaveLength(1);
    const res = await call("POST", `/api/review-items/${open[0].id}/decision`, { token: admin, body: { decision: "reject", reason: "keep the record" } });
    expect(res.status, JSON.stringify(await res.clone().json())).toBe(200);
    const now = new Date();
    const p = policy({ days: (now.getTime() - cutoffMs) / 86_400_000 });
    const content = await exportTasks(t.database, [ids.openReview], { now, cutoff: new Date(cutoffMs), retentionDays: p.days! });
    const crashed = newArchivePath(archiveDir, now);
    await writePendingArchive(crashed, content);
    expect(await pendingArchives(archiveDir)).toEqual([crashed]);
    expect((await hot(ids.openReview)).task).toBe(1); // nothing deleted before the transaction

    const run = await passAt();
    expect(run.recovered).toBe(1);
    expect(run.archived).toBe(1);
    expect(run.files.map((f) => f.path)).toEqual([crashed]); // the pending file, not a second one
    expect(readdirSync(archiveDir).filter((n) => n.endsWith(PENDING))).toEqual([]);
    expect(await archiveFiles(archiveDir)).toHaveLength(2);
    expect((await t.database.prisma.archivedTask.findUniqueOrThrow({ where: { taskId: ids.openReview } })).archivePath).toBe(crashed);
    expect((await hot(ids.openReview)).task).toBe(0);
    const archive = await readArchive(crashed);
    expect(archive.tasks.map((x) => x.task.id)).toEqual([ids.openReview]);
    expect(archive.tasks[0].reviewItems.map((r) => r.status)).toEqual(["rejected"]);

    // again: nothing new, no second copy anywhere
    expect(await passAt()).toMatchObject({ archived: 0, recovered: 0, files: [] });
    expect(await archiveFiles(archiveDir)).toHaveLength(2);
    expect(await t.database.prisma.archivedTask.count()).toBe(3);
  });

  it("a pass that stopped after its transaction and before the rename: the next pass only names the file", async () => {
    // The orphaned lock's review is closed by a person who knows it was not verified released: the review is decided,
    // the resource is still orphaned — and that alone keeps the task.
    const open = await t.database.prisma.reviewItem.findMany({ where: { taskId: ids.orphaned, status: "open" } });
    expect(open).toHaveLength(1);
    const res = await call("POST", `/api/review-items/${open[0].id}/decision`, {
      token: admin,
      body: { decision: "resolve", reason: "released the lock by hand", evidence: "lock console shows it free", confirmNotVerifiedReleased: true },
    });
    expect(res.status, JSON.stringify(await res.clone().json())).toBe(200);
    expect(await t.database.prisma.reviewItem.count({ where: { taskId: ids.orphaned, status: { in: ["open", "escalated"] } } })).toBe(0);
    expect((await t.database.prisma.resource.findMany({ where: { taskId: ids.orphaned } })).map((r) => r.state)).toEqual(["orphaned"]);
    const dry = await passAt({}, true);
    expect(dry.wouldArchive!.some((x) => x.id === ids.orphaned)).toBe(false);
    // The uncertain child's review is closed too ("cannot tell"): the child stays uncertain — and that alone keeps its task.
    const asked = await t.database.prisma.reviewItem.findMany({ where: { taskId: ids.uncertain, status: "open" } });
    expect(asked.map((r) => r.kind)).toEqual(["resolve_uncertain"]);
    const told = await call("POST", `/api/review-items/${asked[0].id}/decision`, {
      token: admin,
      body: { decision: "resolve", reason: "the provider cannot say", finding: "cannot_tell" },
    });
    expect(told.status, JSON.stringify(await told.clone().json())).toBe(200);
    expect(await t.database.prisma.reviewItem.count({ where: { taskId: ids.uncertain, status: { in: ["open", "escalated"] } } })).toBe(0);
    expect((await t.database.prisma.workItem.findMany({ where: { taskId: ids.uncertain } })).map((w) => w.status)).toEqual(["uncertain"]);
    const dry2 = await passAt({}, true);
    expect(dry2.wouldArchive!.some((x) => x.id === ids.uncertain)).toBe(false);
    expect(dry.wouldArchive!.some((x) => x.id === ids.young)).toBe(false);

    // The young task, with a cutoff after it: export, transaction, "crash" before the rename.
    const now = new Date(Date.now() + 1_000);
    const content = await exportTasks(t.database, [ids.young], { now, cutoff: now, retentionDays: 1 });
    const file = newArchivePath(archiveDir, now);
    await writePendingArchive(file, content);
    const committed = await commitArchive(t.database, file, content);
    expect(committed).toEqual({ archived: [ids.young], stayed: [] });
    expect(await pendingArchives(archiveDir)).toEqual([file]);

    const run = await passAt();
    expect(run.recovered).toBe(1);
    expect(run.archived).toBe(0); // already archived by the transaction
    expect(run.files).toEqual([{ path: file, archived: 1, stayed: 0 }]);
    expect((await readArchive(file)).tasks.map((x) => x.task.id)).toEqual([ids.young]);
    expect(await pendingArchives(archiveDir)).toEqual([]);
  });

  it("a task that changed after its export stays, and the file keeps only the tasks that left with it", async () => {
    const a = await newTask("late change a");
    const b = await newTask("late change b");
    await finishTask(t.database, { taskId: a.id, ending: TaskEnding.completed, actor });
    // The export reads b while it is still active; then the agent completes it (an event, a new row version).
    const now = new Date(Date.now() + 1_000);
    const content = await exportTasks(t.database, [a.id, b.id], { now, cutoff: now, retentionDays: 1 });
    const file = newArchivePath(archiveDir, now);
    await writePendingArchive(file, content);
    await finishTask(t.database, { taskId: b.id, ending: TaskEnding.completed, actor });
    const committed = await commitArchive(t.database, file, content);
    expect(committed).toEqual({ archived: [a.id], stayed: [b.id] });
    expect((await hot(b.id)).task).toBe(1);
    expect((await hot(a.id)).task).toBe(0);
    // the next pass (whose cutoff is before both) finishes the file: only a is in it
    const run = await passAt();
    expect(run.recovered).toBe(1);
    expect(run.files).toEqual([{ path: file, archived: 1, stayed: 1 }]);
    const archive = await readArchive(file);
    expect(archive.tasks.map((x) => x.task.id)).toEqual([a.id]);
    expect(archive.header.taskIds).toEqual([a.id]);
    expect(await pendingArchives(archiveDir)).toEqual([]);
    expect(readdirSync(archiveDir).filter((n) => n.endsWith(".tmp"))).toEqual([]);
  });
});

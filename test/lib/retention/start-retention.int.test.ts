import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CURSOR_ID, enqueueEscalations } from "../../../lib/escalation/enqueue";
import { createTask } from "../../../lib/ledger/create-task";
import { finishTask, TaskEnding } from "../../../lib/ledger/finish-task";
import { createTestDatabase, type TestDatabase } from "../../../lib/db/scratch-database";
import { archiveFiles, readArchive } from "../../../lib/retention/archive-file";
import { archiveSettledTasks } from "../../../lib/retention/archive-settled-tasks";
import { retentionPolicy, type RetentionPolicy } from "../../../lib/retention/policy";
import { RETENTION_LEASE, startRetention } from "../../../lib/retention/start-retention";

/**
 * The background runner and the facts a Prisma filter cannot say, on both databases: several processes' runners at
 * once archive each task once (the "retention" lease); an escalation still being delivered keeps its task.
 */
const actor = "agent:retention-runner-test";
let t: TestDatabase;
let dir: string;
const policy = (over: Partial<RetentionPolicy> = {}): RetentionPolicy => ({
  ...retentionPolicy({ STOPLINE_RETENTION_DAYS: "1", STOPLINE_ARCHIVE_DIR: dir }),
  // every task settled before this instant is "old" (a millionth of a day ≈ 86 ms)
  days: 1e-6,
  ...over,
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function completedTask(title: string) {
  const task = await createTask(t.database, { title, ownerId: "runner-owner" }, actor);
  await finishTask(t.database, { taskId: task.id, ending: TaskEnding.completed, actor });
  return task.id;
}

beforeAll(async () => {
  t = await createTestDatabase();
  dir = mkdtempSync(path.join(os.tmpdir(), "stopline-retention-runner-"));
});
afterAll(async () => {
  await t?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the retention runner", () => {
  it("with the policy unset it starts nothing", async () => {
    const stop = startRetention(t.database, retentionPolicy({ STOPLINE_ARCHIVE_DIR: dir }), { firstDelayMs: 0 });
    await sleep(100);
    await stop();
    expect(readdirSync(dir)).toEqual([]);
    expect(await t.database.prisma.processLease.count({ where: { name: RETENTION_LEASE } })).toBe(0);
  });

  it("three processes' runners at once: each task leaves once, in one file, and the lease is given back", async () => {
    const ids = [await completedTask("runner a"), await completedTask("runner b"), await completedTask("runner c")];
    await sleep(150);
    const runs: number[] = [];
    const stops = [0, 1, 2].map(() => startRetention(t.database, policy({ intervalMs: 60_000 }), { firstDelayMs: 0, onRun: (r) => runs.push(r.archived) }));
    const deadline = Date.now() + 10_000;
    while ((await t.database.prisma.archivedTask.count()) < 3 && Date.now() < deadline) await sleep(25);
    await Promise.all(stops.map((stop) => stop()));
    expect(await t.database.prisma.archivedTask.count()).toBe(3);
    expect(await t.database.prisma.task.count({ where: { id: { in: ids } } })).toBe(0);
    // one runner did it (the others found the lease held and did nothing)
    expect(runs.filter((n) => n > 0)).toEqual([3]);
    const files = await archiveFiles(dir);
    expect(files).toHaveLength(1);
    expect((await readArchive(files[0])).tasks.map((x) => x.task.id).sort()).toEqual([...ids].sort());
    const lease = await t.database.prisma.processLease.findUniqueOrThrow({ where: { name: RETENTION_LEASE } });
    expect(lease.expiresAt.getTime()).toBeLessThan(Date.now());
  });

  it("an escalation still being delivered keeps its task; once delivered, the task may leave, its deliveries with it", async () => {
    const id = await completedTask("escalation in flight");
    const channel = await t.database.prisma.escalationChannel.create({ data: { name: "on-call", kind: "webhook", url: "https://hooks.example.com/x" } });
    const delivery = await t.database.prisma.escalationDelivery.create({
      data: { channelId: channel.id, reviewItemId: "review-of-an-earlier-question", taskId: id, kind: "closed_out", payload: { text: "closed" } },
    });
    await sleep(150);
    expect((await archiveSettledTasks(t.database, policy(), { dryRun: true })).wouldArchive).toEqual([]);
    await t.database.prisma.escalationDelivery.update({ where: { id: delivery.id }, data: { status: "delivered", deliveredAt: new Date() } });
    const run = await archiveSettledTasks(t.database, policy());
    expect(run.archived).toBe(1);
    expect(await t.database.prisma.escalationDelivery.count({ where: { taskId: id } })).toBe(0);
    const [line] = (await readArchive(run.files[0].path)).tasks;
    expect(line.task.id).toBe(id);
    expect(line.escalationDeliveries).toEqual([expect.objectContaining({ id: delivery.id, status: "delivered", kind: "closed_out" })]);
  });

  it("--task: only the tasks named leave (the age and the rules still apply)", async () => {
    await t.database.prisma.escalationCursor.deleteMany({});
    const a = await completedTask("only this one");
    const b = await completedTask("not this one");
    const young = await completedTask("too young");
    await sleep(150);
    expect((await archiveSettledTasks(t.database, policy(), { dryRun: true, only: [a, young] })).wouldArchive!.map((x) => x.id).sort()).toEqual(
      [a, young].sort(),
    );
    const run = await archiveSettledTasks(t.database, policy({ days: 1 }), { only: [a, young] });
    expect(run.archived).toBe(0); // a day old they are not
    const now = await archiveSettledTasks(t.database, policy(), { only: [a] });
    expect(now.archived).toBe(1);
    expect(await t.database.prisma.task.count({ where: { id: { in: [a, b, young] } } })).toBe(2);
    expect(await t.database.prisma.archivedTask.count({ where: { taskId: a } })).toBe(1);
  });

  it("the escalation reader's cursor standing on a task's event keeps that task until the cursor moves on", async () => {
    const id = await completedTask("cursor stands here");
    const last = await t.database.prisma.ledgerEvent.findFirstOrThrow({ where: { taskId: id }, orderBy: { seq: "desc" } });
    await t.database.prisma.escalationCursor.upsert({ where: { id: CURSOR_ID }, create: { id: CURSOR_ID, seq: last.seq }, update: { seq: last.seq } });
    await sleep(150);
    expect((await archiveSettledTasks(t.database, policy(), { only: [id] })).archived).toBe(0);
    expect(await t.database.prisma.task.count({ where: { id } })).toBe(1);
    // the reader resumes from its cursor: the event is still there to look up
    await expect(enqueueEscalations(t.database)).resolves.toBe(0);
    // a later event moves the cursor on (as a review item's next event would): the task may leave
    const later = await completedTask("a later task");
    const next = await t.database.prisma.ledgerEvent.findFirstOrThrow({ where: { taskId: later }, orderBy: { seq: "desc" } });
    await t.database.prisma.escalationCursor.update({ where: { id: CURSOR_ID }, data: { seq: next.seq } });
    const run = await archiveSettledTasks(t.database, policy(), { only: [id, later] });
    expect(await t.database.prisma.task.count({ where: { id } })).toBe(0);
    expect(run.archived).toBe(1); // the later task stays: the cursor stands on its event now
    expect(await t.database.prisma.task.count({ where: { id: later } })).toBe(1);
    await expect(enqueueEscalations(t.database)).resolves.toBe(0);
  });
});

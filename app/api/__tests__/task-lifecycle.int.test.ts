import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "@/lib/auth/tokens";
import { LedgerEvent } from "@/lib/ledger/events";
import { call, json } from "@/test/support/api-client";
import { createTestDatabase, type TestDatabase } from "@/lib/db/scratch-database";

/**
 * A task's end over HTTP (issue 10): the agent completes or fails it; Stop on an ended task answers that nothing
 * is running; reversal is its own request; a Stop can name a turn before its task exists.
 */

let t: TestDatabase;
const tokens = { admin: "", agent: "", worker: "", other: "" };

beforeAll(async () => {
  t = await createTestDatabase();
  t.install();
  for (const role of ["admin", "agent", "worker"] as const) tokens[role] = (await createApiToken(t.database, { name: `${role}-1`, role })).token;
  tokens.other = (await createApiToken(t.database, { name: "agent-2", role: "agent" })).token;
});
afterAll(async () => t?.drop());

const events = (taskId: string) => t.database.prisma.ledgerEvent.findMany({ where: { taskId }, orderBy: { seq: "asc" } });
async function newTask(title = "nightly sync") {
  const res = await call("POST", "/api/tasks", { token: tokens.agent, body: { title } });
  expect(res.status).toBe(201);
  return json(res);
}
async function claimAndFinish(taskId: string, outcome: "completed" | "failed" = "completed") {
  const scheduled = await call("POST", `/api/tasks/${taskId}/work-items`, {
    token: tokens.agent,
    body: { kind: "local_worker", toolName: `tool.${taskId}`, mechanism: "abort_signal", intentVersion: 1 },
  });
  expect(scheduled.status).toBe(201);
  const { workItem } = await json(await call("POST", "/api/workers/claim", { token: tokens.worker, body: { workerId: "w", toolNames: [`tool.${taskId}`] } }));
  return {
    workItem,
    finish: () =>
      call("POST", `/api/work-items/${workItem.id}/complete`, {
        token: tokens.worker,
        body: { leaseToken: workItem.leaseToken, outcome, ...(outcome === "failed" ? { error: "boom" } : {}) },
      }),
  };
}

describe("POST /api/tasks/{id}/complete and /fail", () => {
  it("POST /api/tasks/{id}/complete - refused while a child runs; completes once it ended; a repeat changes nothing", async () => {
    const task = await newTask();
    const { finish } = await claimAndFinish(task.id);
    const early = await call("POST", `/api/tasks/${task.id}/complete`, { token: tokens.agent, body: {} });
    expect(early.status).toBe(409);
    expect((await json(early)).error.message).toMatch(/still has 1 active child \(tool\.[\w-]+: running\)/);
    expect((await finish()).status).toBe(200);

    const done = await call("POST", `/api/tasks/${task.id}/complete`, { token: tokens.agent, body: { note: "all rows synced" } });
    expect(done.status).toBe(200);
    const body = await json(done);
    expect(body).toMatchObject({ alreadyFinished: false, task: { stage: "completed", endReason: null } });
    expect(body.task.endedAt).not.toBeNull();
    const again = await json(await call("POST", `/api/tasks/${task.id}/complete`, { token: tokens.agent, body: {} }));
    expect(again.alreadyFinished).toBe(true);
    expect((await events(task.id)).filter((e) => e.type === LedgerEvent.taskCompleted).map((e) => e.data)).toEqual([{ note: "all rows synced" }]);
  });

  it("POST /api/tasks/{id}/fail - needs the reason; a failed task cannot then complete", async () => {
    const task = await newTask();
    expect((await call("POST", `/api/tasks/${task.id}/fail`, { token: tokens.agent, body: {} })).status).toBe(400);
    const failed = await call("POST", `/api/tasks/${task.id}/fail`, { token: tokens.agent, body: { error: "the warehouse API is gone" } });
    expect(failed.status).toBe(200);
    expect((await json(failed)).task).toMatchObject({ stage: "failed", endReason: "the warehouse API is gone" });
    expect((await call("POST", `/api/tasks/${task.id}/complete`, { token: tokens.agent, body: {} })).status).toBe(409);
  });

  it("POST /api/tasks/{id}/complete - a stopped task ends as cancelled, not completed (409 cancel_requested); a worker may not end tasks (403)", async () => {
    const task = await newTask();
    await call("POST", `/api/tasks/${task.id}/cancel`, { token: tokens.agent, body: {} });
    const refused = await call("POST", `/api/tasks/${task.id}/complete`, { token: tokens.agent, body: {} });
    expect(refused.status).toBe(409);
    expect((await json(refused)).error.code).toBe("cancel_requested");
    expect((await call("POST", `/api/tasks/${task.id}/complete`, { token: tokens.worker, body: {} })).status).toBe(403);
  });
});

describe("POST /api/tasks/{id}/cancel - already finished", () => {
  it("answers that nothing is running: no boundary, no event, no review item, no summary", async () => {
    const task = await newTask();
    await call("POST", `/api/tasks/${task.id}/complete`, { token: tokens.agent, body: {} });
    const before = (await events(task.id)).length;
    const res = await call("POST", `/api/tasks/${task.id}/cancel`, { token: tokens.admin, body: { reason: "too late" } });
    expect(res.status).toBe(202);
    const body = await json(res);
    expect(body).toMatchObject({
      kind: "already_finished",
      taskId: task.id,
      stage: "completed",
      message: expect.stringMatching(/^Nothing to stop: this request had already finished, and nothing of it is running\. Nothing was changed\./),
    });
    expect(body.endedAt).not.toBeNull();
    expect((await events(task.id)).length).toBe(before);
    expect(await t.database.prisma.reviewItem.count({ where: { taskId: task.id } })).toBe(0);
    expect((await call("GET", `/api/tasks/${task.id}/cancellation`, { token: tokens.admin })).status).toBe(404);
  });
});

describe("POST /api/tasks/{id}/reversal", () => {
  it("refused while the task is running (Stop is for that); for a task that changed nothing outside, says so", async () => {
    const running = await newTask();
    const refused = await call("POST", `/api/tasks/${running.id}/reversal`, { token: tokens.agent, body: { reason: "undo" } });
    expect(refused.status).toBe(409);
    expect((await json(refused)).error.message).toMatch(/still running: press Stop/);
    const done = await newTask();
    await call("POST", `/api/tasks/${done.id}/complete`, { token: tokens.agent, body: {} });
    const res = await call("POST", `/api/tasks/${done.id}/reversal`, { token: tokens.agent, body: { reason: "undo" } });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ reviewItems: [], irreversible: [], message: "Nothing to reverse: this request changed nothing outside Stopline." });
    expect((await events(done.id)).at(-1)).toMatchObject({ type: LedgerEvent.reversalRequested, actor: "agent:agent-1", reason: "undo" });
  });
});

describe("POST /api/conversations/{id}/turns/{turnId}/cancel", () => {
  it("before the message: the turn's task is born stopped; the message then starts nothing and says so", async () => {
    const stopped = await call("POST", "/api/conversations/conv-t/turns/turn-a/cancel", {
      token: tokens.agent,
      body: { text: "export a report of 5 rows", reason: "pressed Stop at once" },
    });
    expect(stopped.status).toBe(202);
    const boundary = await json(stopped);
    expect(boundary).toMatchObject({ kind: "boundary", boundary: { alreadyRequested: false, intentVersion: 2, reason: "pressed Stop at once" } });
    const again = await json(await call("POST", "/api/conversations/conv-t/turns/turn-a/cancel", { token: tokens.agent, body: {} }));
    expect(again.boundary).toMatchObject({ taskId: boundary.boundary.taskId, alreadyRequested: true });

    const sent = await call("POST", "/api/conversations/conv-t/messages", {
      token: tokens.agent,
      body: { text: "export a report of 5 rows", turnId: "turn-a" },
    });
    expect(sent.status).toBe(201);
    expect(await json(sent)).toMatchObject({ taskId: boundary.boundary.taskId, reply: "You pressed Stop before I started, so I did nothing." });
    const task = await json(await call("GET", `/api/tasks/${boundary.boundary.taskId}`, { token: tokens.agent }));
    expect(task).toMatchObject({ title: "export a report of 5 rows", turnId: "turn-a", workItems: [] });
    expect(task.cancelRequestedAt).not.toBeNull();
  });

  it("a turn id that is not an id is 400; another agent's turn is its own (it cannot stop agent-1's)", async () => {
    expect((await call("POST", "/api/conversations/conv-t/turns/not%20an%20id/cancel", { token: tokens.agent, body: {} })).status).toBe(400);
    await call("POST", "/api/conversations/conv-u/messages", { token: tokens.agent, body: { text: "export a report of 5 rows", turnId: "turn-b" } });
    const foreign = await call("POST", "/api/conversations/conv-u/turns/turn-b/cancel", { token: tokens.other, body: {} });
    expect(foreign.status).toBe(202); // agents may stop any task (the permission map): the Stop lands on the existing task
    const task = await t.database.prisma.task.findUniqueOrThrow({ where: { conversationId_turnId: { conversationId: "conv-u", turnId: "turn-b" } } });
    expect(task.ownerId).toBe("agent-1");
    expect(task.cancelRequestedBy).toBe("agent:agent-2");
  });
});

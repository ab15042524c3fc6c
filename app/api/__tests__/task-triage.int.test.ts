import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemoAccounts } from "@/lib/auth/seed-demo-accounts";
import { createApiToken } from "@/lib/auth/tokens";
import { openReviewItem } from "@/lib/cancellation/steps/7-review";
import { createTask } from "@/lib/ledger/create-task";
import { call, json } from "@/test/support/api-client";
import { createTestDatabase, type TestDatabase } from "@/lib/db/scratch-database";

/**
 * GET /api/tasks carries what an operator triages on: the task's standing in the one vocabulary, the owner's
 * e-mail, its effects, the decisions waiting and the one deadline they share with the review queue.
 */

let t: TestDatabase;
const tokens = { admin: "", agent: "", worker: "" };

beforeAll(async () => {
  t = await createTestDatabase();
  t.install();
  for (const role of ["admin", "agent", "worker"] as const) tokens[role] = (await createApiToken(t.database, { name: `${role}-triage`, role })).token;
});
afterAll(async () => t?.drop());

type Row = {
  workItemCount: number;
  id: string;
  standing: string;
  stopStatus: string | null;
  ownerEmail: string | null;
  tools: string[];
  effects: { committed: number; unknown: number };
  awaitingDecision: number;
  nextDeadline: string | null;
  uncertainSteps: number;
};
const rowOf = async (taskId: string): Promise<Row> => {
  const { tasks } = await json(await call("GET", "/api/tasks?limit=200", { token: tokens.admin }));
  return tasks.find((x: { id: string }) => x.id === taskId);
};

async function schedule(taskId: string, toolName: string, mechanism = "rollback") {
  const res = await call("POST", `/api/tasks/${taskId}/work-items`, {
    token: tokens.agent,
    body: { kind: "external_action", toolName, mechanism, intentVersion: 1, commitsEffect: true },
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return json(res);
}
async function claim(toolName: string) {
  const res = await call("POST", "/api/workers/claim", { token: tokens.worker, body: { workerId: "w-triage", toolNames: [toolName] } });
  return (await json(res)).workItem as { id: string; leaseToken: string };
}

describe("GET /api/tasks - triage facts per row", () => {
  it("a person's task: owner e-mail, tools, nothing awaiting, running", async () => {
    await seedDemoAccounts(t.database);
    const person = await t.database.prisma.user.findUniqueOrThrow({ where: { email: "user@stopline.local" } });
    const task = await createTask(t.database, { title: "book a table", ownerId: person.id }, "agent:t");
    await schedule(task.id, "triage.reserve_table");
    await schedule(task.id, "triage.send_confirmation");
    expect(await rowOf(task.id)).toMatchObject({
      workItemCount: 2,
      standing: "running",
      stopStatus: null,
      ownerEmail: "user@stopline.local",
      tools: ["triage.reserve_table", "triage.send_confirmation"],
      effects: { committed: 0, unknown: 0 },
      awaitingDecision: 0,
      nextDeadline: null,
    });
  });

  it("a Stop still being worked out is 'stopping' with IN_PROGRESS — never settled — and a token's task has no e-mail", async () => {
    const task = json(await call("POST", "/api/tasks", { token: tokens.agent, body: { title: "order chairs" } }));
    const { id } = await task;
    await schedule(id, "triage.order_chairs", "none");
    await claim("triage.order_chairs");
    expect((await call("POST", `/api/tasks/${id}/cancel`, { token: tokens.agent, body: {} })).status).toBe(202);
    expect(await rowOf(id)).toMatchObject({ standing: "stopping", stopStatus: "IN_PROGRESS", ownerEmail: null });
  });

  it("an effect that took place and a decision waiting: counted, with the review item's own deadline", async () => {
    const { id } = await json(await call("POST", "/api/tasks", { token: tokens.agent, body: { title: "create a CRM record" } }));
    const item = await schedule(id, "triage.crm_create");
    const { leaseToken } = await claim("triage.crm_create");
    const w = { token: tokens.worker };
    expect((await call("POST", `/api/work-items/${item.id}/checkpoint`, { ...w, body: { leaseToken } })).status).toBe(200);
    expect(
      (
        await call("POST", `/api/work-items/${item.id}/submitted`, {
          ...w,
          body: { leaseToken, operationId: "op-triage-1", reversible: true, description: "a CRM record" },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await call("POST", `/api/work-items/${item.id}/complete`, {
          ...w,
          body: { leaseToken, outcome: "completed", externalRecordId: "r-1", externalVersion: "1" },
        })
      ).status,
    ).toBe(200);
    const effect = await t.database.prisma.sideEffect.findUniqueOrThrow({ where: { operationId: "op-triage-1" } });
    const review = await openReviewItem(t.database, {
      taskId: id,
      kind: "approve_compensation",
      risk: "low",
      subject: "archive the CRM record",
      workItemId: item.id,
      sideEffectId: effect.id,
    });
    const row = await rowOf(id);
    expect(row).toMatchObject({ effects: { committed: 1, unknown: 0 }, awaitingDecision: 1, tools: ["triage.crm_create"] });
    // One deadline everywhere: the list shows exactly the instant the review queue (and the escalation) use.
    expect(row.nextDeadline).toBe(review!.deadline.toISOString());
    const { reviewItems } = await json(await call("GET", `/api/review-items?taskId=${id}`, { token: tokens.admin }));
    expect(reviewItems[0].deadline).toBe(row.nextDeadline);
  });
});

describe("POST /api/conversations/{id}/messages - long input", () => {
  it("a message over the limit is refused with a 400 that names the field and the limit (nothing is cut)", async () => {
    const res = await call("POST", "/api/conversations/conv-long/messages", { token: tokens.agent, body: { text: "x".repeat(2001) } });
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(JSON.stringify(body)).toContain("at most 2,000 characters");
    expect(JSON.stringify(body)).toContain("text");
  });
});

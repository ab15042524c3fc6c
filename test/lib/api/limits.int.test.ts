import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "../../../lib/auth/tokens";
import { call, json } from "../../support/api-client";
import { createTestDatabase, type TestDatabase } from "../../../lib/db/scratch-database";
import { openIncident } from "../../../lib/incidents/open-incident";
import { IncidentTarget } from "../../../lib/ledger/states";

/**
 * Refusals say what to do next (issue 24): a worker token's Stop is a 403 in one sentence — why, and what to use
 * instead — and nothing is written. (413 and 429: test/scripts/start/api-lane.int.test.ts, test/lib/events/direct-lane.int.test.ts,
 * e2e/limits.spec.ts against the real server.)
 */
let t: TestDatabase;
const tokens = { agent: "", worker: "" };
beforeAll(async () => {
  t = await createTestDatabase();
  t.install();
  for (const role of ["agent", "worker"] as const) tokens[role] = (await createApiToken(t.database, { name: `${role}-limits`, role })).token;
});
afterAll(async () => t?.drop());

describe("refusals that say what to do", () => {
  it("POST /api/tasks/{id}/cancel - a worker token: 403 saying in one sentence why and what to use instead; the task is not stopped", async () => {
    const task = await json(await call("POST", "/api/tasks", { token: tokens.agent, body: { title: "keep going" } }));
    const refused = await call("POST", `/api/tasks/${task.id}/cancel`, { token: tokens.worker, body: { reason: "not mine to stop" } });
    expect(refused.status).toBe(403);
    const { error } = await json(refused);
    expect(error).toMatchObject({ code: "forbidden", details: { role: "worker" } });
    expect(error.message).toBe(
      "A worker token cannot stop a task: worker tokens only run work items (claim, heartbeat, checkpoint, report); use an agent or admin token, or sign in as the task's owner, an operator or an admin.",
    );
    expect(error.message).not.toMatch(/cancellation boundary|intent version/); // not the route's description
    const after = await t.database.prisma.task.findUniqueOrThrow({ where: { id: task.id } });
    expect(after.cancelRequestedAt).toBeNull();
    expect(await t.database.prisma.ledgerEvent.count({ where: { taskId: task.id, type: "task.cancel_requested" } })).toBe(0);
  });

  it("POST /api/tasks - a quarantined agent token: 409 with the incident's reason and nothing created; another token and reads go on", async () => {
    const quarantined = await createApiToken(t.database, { name: "agent-quarantined", role: "agent" });
    const before = await json(await call("POST", "/api/tasks", { token: quarantined.token, body: { title: "before the switch" } }));
    const opened = await openIncident(t.database, {
      targetKind: IncidentTarget.token,
      target: quarantined.record.id,
      reason: "the agent loops on refunds",
      actor: "admin:ops",
    });
    const titles = async () => (await t.database.prisma.task.findMany({ select: { title: true } })).map((x) => x.title);
    const refused = await call("POST", "/api/tasks", { token: quarantined.token, body: { title: "during the switch" } });
    expect(refused.status).toBe(409);
    expect((await json(refused)).error).toMatchObject({
      code: "quarantined",
      details: { incidentId: opened.incident.id, targetKind: "token", target: quarantined.record.id, reason: "the agent loops on refunds" },
    });
    expect(await titles()).not.toContain("during the switch");
    // The switch is on this token only: another agent token starts work; the quarantined one still reads.
    expect((await call("POST", "/api/tasks", { token: tokens.agent, body: { title: "another agent" } })).status).toBe(201);
    expect((await call("GET", `/api/tasks/${before.id}`, { token: quarantined.token })).status).toBe(200);
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "@/lib/auth/tokens";
import { call, json } from "@/test/support/api-client";
import { createTestDatabase, type TestDatabase } from "@/lib/db/scratch-database";

/**
 * The incident kill switch through the HTTP API (issue 13): who may turn it on, a quarantined token refused on every
 * route that starts work (409 quarantined with the reason) while it may still report and read, its tasks stopped with
 * scope incident, and lifting by two people.
 */
let t: TestDatabase;
const tokens = { admin: "", admin2: "", agent: "", worker: "", other: "" };
let agentId = "";
beforeAll(async () => {
  t = await createTestDatabase();
  t.install();
  const agent = await createApiToken(t.database, { name: "agent-quarantined", role: "agent" });
  tokens.agent = agent.token;
  agentId = agent.record.id;
  tokens.admin = (await createApiToken(t.database, { name: "admin-1", role: "admin" })).token;
  tokens.admin2 = (await createApiToken(t.database, { name: "admin-2", role: "admin" })).token;
  tokens.worker = (await createApiToken(t.database, { name: "worker-1", role: "worker" })).token;
  tokens.other = (await createApiToken(t.database, { name: "agent-other", role: "agent" })).token;
});
afterAll(async () => t?.drop());

describe("incidents over HTTP", () => {
  it("POST /api/incidents - an agent may not turn a switch on; bad input is a 400 that names the field", async () => {
    expect((await call("POST", "/api/incidents", { token: tokens.agent, body: { targetKind: "tool", target: "x", reason: "y" } })).status).toBe(403);
    const bad = await call("POST", "/api/incidents", { token: tokens.admin, body: { targetKind: "tool", target: "x", reason: "  " } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await json(bad))).toContain("reason");
    expect((await call("POST", "/api/incidents", { token: tokens.admin, body: { targetKind: "token", target: "no-such-token", reason: "y" } })).status).toBe(
      404,
    );
  });

  it("POST /api/incidents - a quarantined token: its work refused with the reason, its tasks stopped (scope incident), other tokens unaffected; lifting takes two people", async () => {
    const task = await json(await call("POST", "/api/tasks", { token: tokens.agent, body: { title: "agent's work" } }));
    await call("POST", `/api/tasks/${task.id}/work-items`, {
      token: tokens.agent,
      body: { kind: "local_worker", toolName: "nobody.serves", mechanism: "abort_signal", intentVersion: 1 },
    });
    const opened = await call("POST", "/api/incidents", {
      token: tokens.admin,
      body: { targetKind: "token", target: agentId, reason: "the agent loops on refunds" },
    });
    expect(opened.status).toBe(201);
    const incident = await json(opened);
    expect(incident.stoppedTasks).toEqual([task.id]);

    const refused = await call("POST", "/api/tasks", { token: tokens.agent, body: { title: "more" } });
    expect(refused.status).toBe(409);
    expect((await json(refused)).error).toMatchObject({
      code: "quarantined",
      details: { reason: "the agent loops on refunds", incidentId: incident.incident.id },
    });
    // Reading (and stopping) still works for it; another agent is not affected.
    expect((await call("GET", `/api/tasks/${task.id}`, { token: tokens.agent })).status).toBe(200);
    expect((await call("POST", "/api/tasks", { token: tokens.other, body: { title: "unaffected" } })).status).toBe(201);
    const stopped = await json(await call("GET", `/api/tasks/${task.id}`, { token: tokens.admin }));
    expect(stopped.cancelRequestedAt).not.toBeNull();

    const detail = await json(await call("GET", `/api/incidents/${incident.incident.id}`, { token: tokens.admin }));
    expect(detail).toMatchObject({ on: true, counts: { tasks: 1 } });
    expect((await json(await call("GET", "/api/incidents", { token: tokens.admin }))).incidents[0]).toMatchObject({ on: true, tasks: 1 });

    expect((await call("POST", `/api/incidents/${incident.incident.id}/lift/confirm`, { token: tokens.admin, body: {} })).status).toBe(409); // nothing asked yet
    expect((await call("POST", `/api/incidents/${incident.incident.id}/lift`, { token: tokens.admin, body: { reason: "loop fixed" } })).status).toBe(200);
    expect((await call("POST", `/api/incidents/${incident.incident.id}/lift/confirm`, { token: tokens.admin, body: {} })).status).toBe(403);
    expect((await call("POST", "/api/tasks", { token: tokens.agent, body: { title: "still refused" } })).status).toBe(409);
    const lifted = await call("POST", `/api/incidents/${incident.incident.id}/lift/confirm`, { token: tokens.admin2, body: {} });
    expect(lifted.status).toBe(200);
    expect(await json(lifted)).toMatchObject({ state: "lifted", liftedBy: "admin:admin-2", liftRequestedBy: "admin:admin-1" });
    expect((await call("POST", "/api/tasks", { token: tokens.agent, body: { title: "allowed again" } })).status).toBe(201);
  });
  it("a quarantined agent token: the tasks it created for the people it acts for are stopped too; another token of the same name is not touched", async () => {
    const acting = await createApiToken(t.database, { name: "shop-assistant", role: "agent" });
    const namesake = await createApiToken(t.database, { name: "shop-assistant", role: "agent" });
    // the agent works for two people: the tasks are theirs, not the token's
    const forAlice = await json(await call("POST", "/api/tasks", { token: acting.token, body: { title: "alice's refund", ownerId: "alice" } }));
    const forBob = await json(await call("POST", "/api/tasks", { token: acting.token, body: { title: "bob's order", ownerId: "bob" } }));
    expect(forAlice.ownerId).toBe("alice");
    await call("POST", `/api/tasks/${forAlice.id}/work-items`, {
      token: acting.token,
      body: { kind: "local_worker", toolName: "nobody.serves", mechanism: "abort_signal", intentVersion: 1 },
    });
    // another client that happens to share its name, working under that name
    const other = await json(await call("POST", "/api/tasks", { token: namesake.token, body: { title: "the namesake's own work" } }));
    expect(other.ownerId).toBe("shop-assistant");

    const opened = await call("POST", "/api/incidents", {
      token: tokens.admin,
      body: { targetKind: "token", target: acting.record.id, reason: "refunds in a loop" },
    });
    expect(opened.status).toBe(201);
    const incident = await json(opened);
    expect([...incident.stoppedTasks].sort()).toEqual([forAlice.id, forBob.id].sort());
    for (const id of [forAlice.id, forBob.id]) {
      const task = await t.database.prisma.task.findUniqueOrThrow({ where: { id } });
      expect(task).toMatchObject({ stage: expect.stringMatching(/cancel/), cancelScope: "incident", cancelScopeRef: incident.incident.id });
    }
    const untouched = await t.database.prisma.task.findUniqueOrThrow({ where: { id: other.id } });
    expect(untouched).toMatchObject({ stage: "active", cancelRequestedAt: null });
    expect((await call("POST", "/api/tasks", { token: namesake.token, body: { title: "still allowed" } })).status).toBe(201);
    expect((await call("POST", "/api/tasks", { token: acting.token, body: { title: "refused", ownerId: "carol" } })).status).toBe(409);
  });
  it("GET /api/incidents/targets - what a switch can name: the tools the ledger knows by their exact names (with their live work) and the agent and worker tokens by id; not for agents", async () => {
    const agent = await createApiToken(t.database, { name: "targets-agent", role: "agent" });
    const task = await json(await call("POST", "/api/tasks", { token: agent.token, body: { title: "targets" } }));
    await call("POST", `/api/tasks/${task.id}/work-items`, {
      token: agent.token,
      body: { kind: "remote_tool", toolName: "mcp:demo.count_slowly", mechanism: "abort_signal", intentVersion: 1 },
    });
    const answer = await call("GET", "/api/incidents/targets", { token: tokens.admin });
    expect(answer.status).toBe(200);
    const targets = await json(answer);
    expect(targets.tools).toContainEqual({ name: "mcp:demo.count_slowly", live: 1 });
    expect(targets.tokens).toContainEqual({ id: agent.record.id, name: "targets-agent", role: "agent", prefix: expect.any(String) });
    expect(targets.tokens.map((x: { role: string }) => x.role)).not.toContain("admin");
    expect((await call("GET", "/api/incidents/targets", { token: agent.token })).status).toBe(403);
  });
});

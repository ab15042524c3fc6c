import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { authenticateToken, createApiToken } from "../../../lib/auth/tokens";
import { CancellationEngine } from "../../../lib/cancellation/engine";
import { getCancellationSummary } from "../../../lib/cancellation/get-cancellation-summary";
import { createTask } from "../../../lib/ledger/create-task";
import { LedgerEvent } from "../../../lib/ledger/events";
import type { GatewayConfig } from "../../../lib/mcp-gateway/config";
import { McpGateway } from "../../../lib/mcp-gateway/gateway";
import { createGatewayHttpHandler } from "../../../lib/mcp-gateway/http";
import { startFixtureServer, type FixtureServer } from "../../support/mcp-gateway/fixture-server";
import { serveFetch } from "../../support/mcp-gateway/serve";
import { call, json } from "../../support/api-client";
import { createTestDatabase, testEngine, type TestDatabase } from "../../../lib/db/scratch-database";
import { ToolRegistry } from "../../../lib/tools/registry";
import { getIncident } from "../../../lib/incidents/get-incident";
import { sweepIncidents } from "../../../lib/incidents/sweep-incidents";
import { confirmLift as confirmLiftOf, requestLift } from "../../../lib/incidents/lift-incident";

/**
 * The incident kill switch reaching calls that run THROUGH THE MCP GATEWAY (issue 13): a real MCP client (SDK 2.x)
 * → the gateway's Streamable HTTP endpoint (API-token auth) → the Stopline demo MCP server over stdio, whose own
 * witness log (its stderr) says what it received and did. The operator turns the switch on through the HTTP API.
 *
 * A gateway call learns of a Stop the way every running child does: the switch records the call's boundary in the
 * ledger (work_item.stop_requested, or the task's boundary for a token), the in-process runner fires the call's
 * AbortSignal on that commit (or on its next heartbeat from another process), the MCP adapter sends
 * notifications/cancelled downstream, and the engine settles the item by the server's answer. One path, no second
 * mechanism — so each scenario checks the downstream server, the ledger, and what the client is told.
 */

const ROOT = path.resolve(import.meta.dirname, "../../..");
const TOOL = "mcp:demo.count_slowly";
let t: TestDatabase;
let fixture: FixtureServer;
let gateway: McpGateway;
let engine: CancellationEngine;
let endpoint: { url: string; close(): Promise<void> };
const tokens = { olivia: "", pat: "", agentA: "", agentB: "" };
let agentAId = "";
const clients: Client[] = [];
/** The demo server's own log: one line per fact (started, step, cancel_received, stopped, completed). */
const witness: { witness: string; requestId?: number; counted?: number; afterCancel?: boolean; reason?: string }[] = [];

beforeAll(async () => {
  [t, fixture] = await Promise.all([createTestDatabase(), startFixtureServer()]);
  t.install();
  tokens.olivia = (await createApiToken(t.database, { name: "olivia", role: "admin" })).token;
  tokens.pat = (await createApiToken(t.database, { name: "pat", role: "admin" })).token;
  const a = await createApiToken(t.database, { name: "agent-a", role: "agent" });
  tokens.agentA = a.token;
  agentAId = a.record.id;
  tokens.agentB = (await createApiToken(t.database, { name: "agent-b", role: "agent" })).token;

  const registry = new ToolRegistry();
  const config: GatewayConfig = {
    servers: {
      demo: { stdio: { command: process.execPath, args: ["--import", "tsx", "lib/tools/adapters/demo-mcp-server.ts"], cwd: ROOT } },
      fixture: { url: fixture.url, only: ["test_simple_text"] },
    },
  };
  gateway = await McpGateway.start({ database: t.database, registry, config, heartbeatMs: 500, downstreamStderr: "pipe" });
  let buffered = "";
  gateway.tools.get("count_slowly")!.set.stderr!.on("data", (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split("\n");
    buffered = lines.pop()!;
    for (const line of lines) if (line.startsWith("{")) witness.push(JSON.parse(line));
  });
  engine = new CancellationEngine(t.database, { registry, verifyDelayMs: 50, settleTimeoutMs: 1_000 }).start(200);
  // Authenticated as the app does it (lib/mcp-gateway/app-gateway.ts): a Bearer API token of an agent or an admin.
  endpoint = await serveFetch(
    createGatewayHttpHandler(gateway, {
      async authenticate(request) {
        const match = /^Bearer\s+(\S+)$/i.exec(request.headers.get("authorization") ?? "");
        const principal = match ? await authenticateToken(t.database, match[1]) : null;
        return principal && (principal.role === "admin" || principal.role === "agent") ? { id: principal.id, name: principal.name } : null;
      },
    }),
  );
}, 60_000);

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await endpoint?.close();
  await engine?.stop();
  await gateway?.close();
  await fixture?.close();
  await t?.drop();
});

// A scenario that failed half-way must not leave its switch on for the next one (each lifts its own when it passes).
afterEach(async () => {
  for (const i of await t.database.prisma.incident.findMany({ where: { state: { in: ["active", "lift_requested"] } } })) {
    if (i.state === "active")
      await requestLift(t.database, { incidentId: i.id, reason: "test cleanup", actor: "operator:cleanup", actorId: "person:cleanup-1" });
    await confirmLiftOf(t.database, { incidentId: i.id, actor: "operator:cleanup", actorId: "person:cleanup-2" });
  }
});

async function connect(token: string, name: string) {
  const client = new Client({ name, version: "1.0.0" }, { versionNegotiation: { mode: "legacy" } });
  await client.connect(new StreamableHTTPClientTransport(new URL(endpoint.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  clients.push(client);
  return client;
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until<T>(probe: () => Promise<T | undefined | null | false> | T | undefined | null | false, what: string, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v as T;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}
const textOf = (r: { content?: unknown }) => ((r.content ?? []) as { type: string; text?: string }[]).map((c) => c.text ?? "").join(" ");
const items = (where: { ownerId?: string } = {}) =>
  t.database.prisma.workItem.findMany({
    where: { toolName: TOOL, ...(where.ownerId ? { task: { ownerId: where.ownerId } } : {}) },
    orderBy: { createdAt: "asc" },
  });
/** The call of this owner that is under way at the demo server (it has counted at least one step). */
async function countingCall(ownerId: string, seen: Set<string>) {
  const item = await until(
    async () => (await items({ ownerId })).find((i) => !seen.has(i.id) && (i.status === "running" || i.status === "submitted")),
    `a running call of ${ownerId}`,
  );
  const requestId = await until(() => gateway.tools.get("count_slowly")!.set.observation(item.id)?.requestId, "the call to be sent downstream");
  await until(() => witness.some((w) => w.requestId === requestId && w.witness === "step"), "the demo server to count");
  return { item, requestId: requestId as number };
}
const factsOf = (requestId: number) => witness.filter((w) => w.requestId === requestId);
const settled = (id: string) =>
  until(async () => {
    const row = await t.database.prisma.workItem.findUnique({ where: { id } });
    return row && !["running", "submitted", "cancelling", "uncertain"].includes(row.status) ? row : null;
  }, `work item ${id} to settle`);
async function lift(incidentId: string) {
  expect((await call("POST", `/api/incidents/${incidentId}/lift`, { token: tokens.olivia, body: { reason: "fixed" } })).status).toBe(200);
  // Maker-checker: the one who asked cannot confirm.
  expect((await call("POST", `/api/incidents/${incidentId}/lift/confirm`, { token: tokens.olivia, body: {} })).status).toBe(403);
}
const confirmLift = async (incidentId: string) =>
  expect((await call("POST", `/api/incidents/${incidentId}/lift/confirm`, { token: tokens.pat, body: {} })).status).toBe(200);

describe(`the incident kill switch through the MCP gateway (${testEngine()})`, () => {
  it("a tool quarantined while a call of it runs through the gateway: the server is told and stops, the ledger says stopped; new calls are refused with the reason, other tools go on; after a two-person lift it runs again", async () => {
    const client = await connect(tokens.agentA, "ide-tool-switch");
    const pending = client.callTool({ name: "count_slowly", arguments: { steps: 400, delayMs: 20 } }, { timeout: 30_000 });
    const { item, requestId } = await countingCall("agent-a", new Set());

    const opened = await call("POST", "/api/incidents", {
      token: tokens.olivia,
      body: { targetKind: "tool", target: TOOL, reason: "count_slowly writes to the wrong tenant" },
    });
    expect(opened.status).toBe(201);
    const incident = await json(opened);
    expect(incident.stoppedWorkItems).toEqual([item.id]);

    // The client is answered with Stopline's account, not a success.
    const answer = await pending;
    expect(answer.isError).toBe(true);
    expect(textOf(answer)).toMatch(/stopped before it completed \(confirmed by the server\)/);
    // What the downstream server itself did: it received the cancellation, stopped, never counted on or completed.
    await until(() => factsOf(requestId).some((w) => w.witness === "stopped"), "the demo server to stop", 15_000);
    expect(factsOf(requestId).map((w) => w.witness)).toContain("cancel_received");
    expect(factsOf(requestId).filter((w) => w.witness === "step" && w.afterCancel)).toEqual([]);
    expect(factsOf(requestId).map((w) => w.witness)).not.toContain("completed");
    // The ledger: the call's boundary by the operator for the incident, then the outcome the server confirmed.
    expect(await settled(item.id)).toMatchObject({ status: "cancelled", stopIncidentId: incident.incident.id, stopRootId: item.id });
    const events = await t.database.prisma.ledgerEvent.findMany({ where: { workItemId: item.id }, orderBy: { seq: "asc" } });
    expect(events.find((e) => e.type === LedgerEvent.workItemStopRequested)).toMatchObject({
      actor: "admin:olivia",
      reason: "incident: count_slowly writes to the wrong tenant",
    });
    // count_slowly commits nothing (readOnlyHint): told to stop, it is stopped — nothing was submitted, nothing to reconcile.
    // (The engine may move it to cancelling first, or its runner may report first.)
    const states = events.filter((e) => e.toState).map((e) => e.toState);
    expect(states.filter((state) => state !== "cancelling")).toEqual(["queued", "running", "cancelled"]);
    const detail = await until(async () => {
      const d = await getIncident(t.database, incident.incident.id);
      return d.counts.stillStopping === 0 ? d : null;
    }, "the incident's Stop to settle");
    expect(detail.tasks.flatMap((x) => x.steps).map((s) => [s.workItemId, s.outcome.kind])).toEqual([[item.id, "stopped"]]);
    // The engine's pass over the switch's Stop of this call is recorded as finished (its summary is final).
    await until(async () => (await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: item.id } })).stopSettledAt, "the call's Stop to be settled");
    // The switch stopped the tool's call, not the session's task.
    expect((await t.database.prisma.task.findUniqueOrThrow({ where: { id: item.taskId } })).cancelRequestedAt).toBeNull();

    // A new call of the tool is refused with the incident's reason — in this session and in a new one — and nothing
    // of it is recorded or sent downstream.
    const startedBefore = witness.filter((w) => w.witness === "started").length;
    const itemsBefore = (await items()).length;
    for (const c of [client, await connect(tokens.agentB, "another-agent")]) {
      const refused = await c.callTool({ name: "count_slowly", arguments: { steps: 2, delayMs: 1 } });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toContain("count_slowly writes to the wrong tenant");
      expect(refused._meta?.["dev.stopline/error"]).toMatchObject({
        code: "quarantined",
        status: 409,
        incidentId: incident.incident.id,
        reason: "count_slowly writes to the wrong tenant",
      });
    }
    expect((await items()).length).toBe(itemsBefore);
    expect(await t.database.prisma.task.count({ where: { ownerId: "agent-b" } })).toBe(0); // the refused new session made no task
    // Another tool in the same session goes on.
    expect(textOf(await client.callTool({ name: "test_simple_text", arguments: {} }))).toMatch(/simple text response/);

    // Lifting takes two people; until the second confirms, the tool stays refused.
    await lift(incident.incident.id);
    expect((await client.callTool({ name: "count_slowly", arguments: { steps: 2, delayMs: 1 } }))._meta?.["dev.stopline/error"]).toMatchObject({
      code: "quarantined",
    });
    expect(witness.filter((w) => w.witness === "started").length).toBe(startedBefore);
    await confirmLift(incident.incident.id);
    const again = await client.callTool({ name: "count_slowly", arguments: { steps: 3, delayMs: 5 } });
    expect(again.structuredContent).toEqual({ counted: 3 });
    expect(witness.filter((w) => w.witness === "completed" && w.counted === 3)).toHaveLength(1);
  }, 120_000);

  it("an agent token quarantined while its call runs: that call is stopped downstream and its session's task stopped (scope incident); every new call of the token is refused, in any session, while another token's call runs to the end; after a two-person lift the token works again", async () => {
    const seen = new Set((await items()).map((i) => i.id));
    const a = await connect(tokens.agentA, "agent-a-ide");
    const b = await connect(tokens.agentB, "agent-b-ide");
    const pendingA = a.callTool({ name: "count_slowly", arguments: { steps: 400, delayMs: 20 } }, { timeout: 30_000 });
    const pendingB = b.callTool({ name: "count_slowly", arguments: { steps: 60, delayMs: 20 } }, { timeout: 30_000 });
    const callA = await countingCall("agent-a", seen);
    const callB = await countingCall("agent-b", seen);

    const opened = await call("POST", "/api/incidents", {
      token: tokens.olivia,
      body: { targetKind: "token", target: agentAId, reason: "agent-a loops on refunds" },
    });
    expect(opened.status).toBe(201);
    const incident = await json(opened);
    // Every active task of the token (this session's, and the earlier session's of the same agent), none of another.
    expect(incident.stoppedTasks).toContain(callA.item.taskId);
    expect(incident.stoppedTasks).not.toContain(callB.item.taskId);

    const answerA = await pendingA;
    expect(answerA.isError).toBe(true);
    expect(textOf(answerA)).toMatch(/stopped/);
    await until(() => factsOf(callA.requestId).some((w) => w.witness === "stopped"), "the demo server to stop agent-a's call", 15_000);
    expect(factsOf(callA.requestId).map((w) => w.witness)).not.toContain("completed");
    expect(factsOf(callA.requestId).filter((w) => w.witness === "step" && w.afterCancel)).toEqual([]);
    expect((await settled(callA.item.id)).status).toBe("cancelled");
    expect(await t.database.prisma.task.findUniqueOrThrow({ where: { id: callA.item.taskId } })).toMatchObject({
      cancelScope: "incident",
      cancelScopeRef: incident.incident.id,
      cancelRequestedBy: "admin:olivia",
    });
    const summary = await until(async () => {
      const s = await getCancellationSummary(t.database, callA.item.taskId);
      return s.status === "IN_PROGRESS" ? null : s;
    }, "agent-a's summary to settle");
    expect(summary.status).toBe("CANCELLED");
    expect(summary.cancelled_tool_calls.map((c) => [c.tool_name, c.cancellation_status])).toEqual([[TOOL, "CANCELLED"]]);

    // Another token's call was not touched: it ran to the end at the server.
    expect((await pendingB).structuredContent).toEqual({ counted: 60 });
    expect(factsOf(callB.requestId).map((w) => w.witness)).toContain("completed");
    expect((await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: callB.item.id } })).status).toBe("completed");

    // Every new call of the quarantined token is refused with the reason: in its session, and in a new session (no new
    // task is made for it); nothing reaches the server.
    const tasksBefore = await t.database.prisma.task.count({ where: { ownerId: "agent-a" } });
    const startedBefore = witness.filter((w) => w.witness === "started").length;
    for (const c of [a, await connect(tokens.agentA, "agent-a-second-ide")]) {
      for (const name of ["count_slowly", "test_simple_text"]) {
        const refused = await c.callTool({ name, arguments: name === "count_slowly" ? { steps: 2, delayMs: 1 } : {} });
        expect(refused.isError).toBe(true);
        expect(textOf(refused)).toContain("agent-a loops on refunds");
        expect(refused._meta?.["dev.stopline/error"]).toMatchObject({
          code: "quarantined",
          status: 409,
          incidentId: incident.incident.id,
          targetKind: "token",
        });
      }
    }
    expect(await t.database.prisma.task.count({ where: { ownerId: "agent-a" } })).toBe(tasksBefore);
    expect(witness.filter((w) => w.witness === "started").length).toBe(startedBefore);
    // The other token still works.
    expect((await b.callTool({ name: "count_slowly", arguments: { steps: 2, delayMs: 1 } })).structuredContent).toEqual({ counted: 2 });
    // A task of the token that slipped in around the switch's commit (a request whose check passed just before it,
    // created after the switch's Stop read the token's tasks): the maintenance pass's sweep (run here as the engine's
    // maintenance runs it; under load its next pass may be seconds away) stops it like the switch.
    const stray = await createTask(t.database, { title: "raced the switch", ownerId: "agent-a" }, "agent:agent-a");
    await sweepIncidents(t.database);
    expect(await t.database.prisma.task.findUniqueOrThrow({ where: { id: stray.id } })).toMatchObject({
      cancelScope: "incident",
      cancelScopeRef: incident.incident.id,
      cancelRequestedBy: "admin:olivia",
    });

    await lift(incident.incident.id);
    expect((await a.callTool({ name: "test_simple_text", arguments: {} }))._meta?.["dev.stopline/error"]).toMatchObject({ code: "quarantined" });
    await confirmLift(incident.incident.id);
    // The same session goes on in a new task (the stopped one stays as recorded).
    const again = await a.callTool({ name: "count_slowly", arguments: { steps: 3, delayMs: 5 } });
    expect(again.structuredContent).toEqual({ counted: 3 });
    const last = (await items({ ownerId: "agent-a" })).at(-1)!;
    expect(last).toMatchObject({ status: "completed" });
    expect(last.taskId).not.toBe(callA.item.taskId);
    expect((await t.database.prisma.task.findUniqueOrThrow({ where: { id: callA.item.taskId } })).cancelScopeRef).toBe(incident.incident.id);
  }, 120_000);
  it("a switch turned on from ANOTHER process (sharing only the database): the gateway learns of it from the ledger (its call's heartbeat), the server is told and stops, the engine settles the call", async () => {
    const seen = new Set((await items()).map((i) => i.id));
    const client = await connect(tokens.agentB, "agent-b-remote-switch");
    const pending = client.callTool({ name: "count_slowly", arguments: { steps: 600, delayMs: 20 } }, { timeout: 30_000 });
    const { item, requestId } = await countingCall("agent-b", seen);

    const { NODE_CHANNEL_FD: _ipc, ...env } = process.env;
    const out = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "test/support/incidents/open-incident-process.ts", "tool", TOOL, "quarantined from another instance", "operator:remote"],
      {
        cwd: ROOT,
        env: { ...env, DATABASE_URL: t.url },
        timeout: 60_000,
      },
    );
    const opened = JSON.parse(out.stdout.trim().split("\n").at(-1)!) as { incidentId: string; stoppedWorkItems: string[] };
    expect(opened.stoppedWorkItems).toEqual([item.id]);

    // No bus event reached this process: the call's heartbeat (every 500 ms here) read the boundary from the ledger.
    await until(() => factsOf(requestId).some((w) => w.witness === "stopped"), "the demo server to stop the call", 20_000);
    expect(factsOf(requestId).map((w) => w.witness)).toContain("cancel_received");
    expect(factsOf(requestId).map((w) => w.witness)).not.toContain("completed");
    const answer = await pending;
    expect(answer.isError).toBe(true);
    expect(textOf(answer)).toMatch(/stopped|not known yet/); // the engine here may settle it after the client's answer
    // This process's engine finds the other process's Stop in the ledger (maintenance) and settles it.
    expect(await settled(item.id)).toMatchObject({ status: "cancelled", stopIncidentId: opened.incidentId });
    expect(await t.database.prisma.ledgerEvent.findFirst({ where: { workItemId: item.id, type: LedgerEvent.workItemStopRequested } })).toMatchObject({
      actor: "operator:remote",
    });
    const refused = await client.callTool({ name: "count_slowly", arguments: { steps: 2, delayMs: 1 } });
    expect(textOf(refused)).toContain("quarantined from another instance");

    await lift(opened.incidentId);
    await confirmLift(opened.incidentId);
  }, 120_000);
});

import path from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "../../../lib/auth/tokens";
import { CancellationEngine } from "../../../lib/cancellation/engine";
import { getCancellationSummary } from "../../../lib/cancellation/get-cancellation-summary";
import { call } from "../../support/api-client";
import { createTestDatabase, type TestDatabase } from "../../../lib/db/scratch-database";
import { ToolRegistry } from "../../../lib/tools/registry";
import type { GatewayConfig } from "../../../lib/mcp-gateway/config";
import { McpGateway } from "../../../lib/mcp-gateway/gateway";
import { createGatewayHttpHandler, SESSION_META_KEY } from "../../../lib/mcp-gateway/http";
import { startFixtureServer, type FixtureServer } from "../../support/mcp-gateway/fixture-server";
import { serveFetch } from "../../support/mcp-gateway/serve";

/**
 * The MCP gateway end to end: REAL MCP clients (the SDK 2.x client, both protocol eras) → the gateway's
 * Streamable HTTP endpoint → REAL downstream servers — the Stopline demo server and server-everything over stdio,
 * and a tasks-capable SDK 2.x server over HTTP — with the ledger, the cancellation engine and the console's
 * Stop route running. Each scenario asserts on the ledger and on what the downstream server itself saw.
 */

const ROOT = path.resolve(import.meta.dirname, "../../..");
let t: TestDatabase;
let fixture: FixtureServer;
let gateway: McpGateway;
let engine: CancellationEngine;
let endpoint: { url: string; close(): Promise<void> };
let adminToken: string;
const clients: Client[] = [];

beforeAll(async () => {
  [t, fixture] = await Promise.all([createTestDatabase(), startFixtureServer()]);
  t.install();
  adminToken = (await createApiToken(t.database, { name: "console-operator", role: "admin" })).token;
  const registry = new ToolRegistry();
  const config: GatewayConfig = {
    servers: {
      demo: { stdio: { command: process.execPath, args: ["--import", "tsx", "lib/tools/adapters/demo-mcp-server.ts"], cwd: ROOT } },
      everything: {
        stdio: { command: path.join(ROOT, "node_modules/.bin/mcp-server-everything"), args: ["stdio"], cwd: ROOT },
        only: ["trigger-long-running-operation"],
      },
      fixture: {
        url: fixture.url,
        confirmGraceMs: 1_500,
        tools: {
          slow_job: { commitsEffect: true, risk: "high" },
          // an effect confirmed through what MCP offers: a later tools/call of the server's own inspect tool, by key
          place_order: {
            commitsEffect: true,
            risk: "high",
            inspect: { tool: "order_status", arguments: { key: "{idempotencyKey}" } },
            idempotencyKeyArgument: "key",
          },
        },
      },
    },
  };
  gateway = await McpGateway.start({ database: t.database, registry, config, heartbeatMs: 500 });
  engine = new CancellationEngine(t.database, { registry, verifyDelayMs: 50, settleTimeoutMs: 1_000 }).start(200);
  // The endpoint admits every request as one principal (the conformance suite, which sends no credentials, runs against
  // the app's own route with a real token: conformance.int.test.ts).
  endpoint = await serveFetch(createGatewayHttpHandler(gateway, { authenticate: async () => ({ id: "tok_test", name: "ide" }) }));
}, 60_000);

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await endpoint?.close();
  await engine?.stop();
  await gateway?.close();
  await fixture?.close();
  await t?.drop();
});

async function connect(mode: "legacy" | "auto", name = "test-client") {
  const client = new Client({ name, version: "1.0.0" }, { versionNegotiation: { mode } });
  await client.connect(new StreamableHTTPClientTransport(new URL(endpoint.url)));
  clients.push(client);
  return client;
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until<T>(probe: () => Promise<T | undefined | null | false> | T | undefined | null | false, what: string, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v as T;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}
const items = (toolName: string) => t.database.prisma.workItem.findMany({ where: { toolName }, orderBy: { createdAt: "asc" } });
/** A call in flight (a call is recorded as submitted before it is sent to the server). */
const runningItem = (toolName: string) =>
  until(async () => (await items(toolName)).find((i) => i.status === "running" || i.status === "submitted"), `a running ${toolName}`);
const settledItem = (id: string, not: string[] = ["running", "cancelling", "submitted", "uncertain"]) =>
  until(async () => {
    const i = await t.database.prisma.workItem.findUnique({ where: { id } });
    return i && !not.includes(i.status) ? i : undefined;
  }, `work item ${id} to settle`);
const textOf = (r: { content?: unknown }) => ((r.content ?? []) as { type: string; text?: string }[]).map((c) => c.text ?? "").join(" ");

describe("MCP gateway: a real client through the gateway to real servers", () => {
  it("tools/list shows every downstream tool; a tools/call is a work item of the session's task and returns the server's result", async () => {
    const client = await connect("legacy", "ide-list");
    const { tools } = await client.listTools();
    expect(tools.map((x) => x.name)).toEqual(
      expect.arrayContaining(["count_slowly", "trigger-long-running-operation", "slow_job", "wait", "test_simple_text"]),
    );
    const result = await client.callTool({ name: "count_slowly", arguments: { steps: 3, delayMs: 5 } });
    expect(result.structuredContent).toEqual({ counted: 3 });
    const [item] = await items("mcp:demo.count_slowly");
    expect(item).toMatchObject({ status: "completed", kind: "remote_tool", mechanism: "provider_cancel", leaseOwner: null });
    const task = await t.database.prisma.task.findUniqueOrThrow({ where: { id: item.taskId } });
    expect(task).toMatchObject({ title: "MCP session: ide-list", stage: "active", ownerId: "ide" });
    // a second call in the same session joins the same task
    await client.callTool({ name: "test_simple_text", arguments: {} });
    expect((await items("mcp:fixture.test_simple_text"))[0].taskId).toBe(task.id);
  });

  it("Stop from the console during a long call: the demo server stops, the client is told so, the summary says CANCELLED, and the stopped session starts nothing new", async () => {
    const client = await connect("legacy", "ide-console-stop");
    const pending = client.callTool({ name: "count_slowly", arguments: { steps: 400, delayMs: 20 } }, { timeout: 20_000 });
    const item = await runningItem("mcp:demo.count_slowly");
    await sleep(150);

    // the console's Stop button: POST /api/tasks/{id}/cancel
    const stop = await call("POST", `/api/tasks/${item.taskId}/cancel`, {
      headers: { authorization: `Bearer ${adminToken}` },
      body: { reason: "operator pressed Stop in the console" },
    });
    expect(stop.status).toBe(202);

    const answer = await pending;
    expect(answer.isError).toBe(true);
    expect(textOf(answer)).toMatch(/stopped/);
    const settled = await settledItem(item.id);
    expect(settled.status).toBe("cancelled");
    const summary = await until(async () => {
      const s = await getCancellationSummary(t.database, item.taskId);
      return s.status === "IN_PROGRESS" ? undefined : s;
    }, "the summary to settle");
    expect(summary.status).toBe("CANCELLED");
    expect(summary.cancelled_tool_calls.map((c) => [c.tool_name, c.cancellation_status])).toEqual([["mcp:demo.count_slowly", "CANCELLED"]]);

    const refused = await client.callTool({ name: "test_simple_text", arguments: {} });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/this session was stopped/);
    expect((await items("mcp:fixture.test_simple_text")).filter((i) => i.taskId === item.taskId)).toEqual([]);
  });

  it("2025-11-25: the client's own notifications/cancelled stops that call only; the session goes on", async () => {
    const client = await connect("legacy", "ide-client-cancel");
    const controller = new AbortController();
    const pending = client.callTool({ name: "count_slowly", arguments: { steps: 400, delayMs: 20 } }, { signal: controller.signal }).catch((e: Error) => e);
    const item = await runningItem("mcp:demo.count_slowly");
    await sleep(150);
    controller.abort("the user cancelled in the IDE");
    expect(await pending).toBeInstanceOf(Error);
    const settled = await settledItem(item.id);
    expect(settled.status).toBe("cancelled");
    const stopEvent = await t.database.prisma.ledgerEvent.findFirstOrThrow({ where: { workItemId: item.id, type: "work_item.cancelling" } });
    expect(stopEvent).toMatchObject({ actor: "mcp-client:ide", data: { scope: "call" } });
    expect(stopEvent.reason).toMatch(/the MCP client cancelled this call/);
    const task = await t.database.prisma.task.findUniqueOrThrow({ where: { id: item.taskId } });
    expect(task.cancelRequestedAt).toBeNull();
    const next = await client.callTool({ name: "count_slowly", arguments: { steps: 2, delayMs: 1 } });
    expect(next.structuredContent).toEqual({ counted: 2 });
  });

  it("2026-07-28 over HTTP: the client closes the call's response stream; the gateway closes its own downstream stream — an effect-free call (readOnlyHint) ends stopped, no person asked", async () => {
    const client = await connect("auto", "agent-modern");
    expect(client.getProtocolEra()).toBe("modern");
    expect(gateway.tools.get("wait")!.set.era).toBe("modern");
    const controller = new AbortController();
    const pending = client.callTool({ name: "wait", arguments: { ms: 5_000 } }, { signal: controller.signal }).catch((e: Error) => e);
    await until(() => fixture.witness.some((w) => w.fact === "wait_started"), "the downstream call to start");
    controller.abort("closed by the agent");
    expect(await pending).toBeInstanceOf(Error);

    // what the downstream server saw: its request was aborted (the stream closed), it never completed
    await until(() => fixture.witness.some((w) => w.fact === "wait_aborted"), "the fixture to see its stream closed");
    expect(fixture.witness.filter((w) => w.fact === "wait_completed")).toEqual([]);
    const [item] = await items("mcp:fixture.wait");
    const settled = await settledItem(item.id);
    expect(settled).toMatchObject({ status: "cancelled", commitsEffect: false });
    expect(gateway.tools.get("wait")!.set.observation(item.id)).toMatchObject({ cancelKind: "stream_closed", answer: null });
    expect(await t.database.prisma.reviewItem.count({ where: { workItemId: item.id } })).toBe(0);
    expect(await t.database.prisma.sideEffect.count({ where: { workItemId: item.id } })).toBe(0);
  });

  it("an effect the server does not confirm after a cancel is confirmed through the tool's configured inspect (a later tools/call): placed anyway → completed with the order as its side effect; honoured → cancelled; no person asked about either", async () => {
    const client = await connect("legacy", "ide-orders");
    // 1. the server ignores the cancellation and places the order; as the spec says, it sends no answer to the request
    const first = new AbortController();
    const placing = client
      .callTool({ name: "place_order", arguments: { item: "chair", ms: 400, onCancel: "finish" } }, { signal: first.signal })
      .catch((e: Error) => e);
    const started = await until(() => fixture.witness.find((w) => w.fact === "order_started" && w.detail?.onCancel === "finish"), "the order to start");
    first.abort("the user cancelled in the IDE");
    expect(await placing).toBeInstanceOf(Error);
    const [placed] = await items("mcp:fixture.place_order");
    expect(started.detail!.key).toBe(placed.idempotencyKey); // the call carried its idempotency key (idempotencyKeyArgument)
    const done = await settledItem(placed.id);
    const order = fixture.witness.find((w) => w.fact === "order_placed" && w.detail?.key === placed.idempotencyKey)!;
    expect(order.detail!.afterCancel).toBe(true);
    expect(done.status).toBe("completed");
    expect(fixture.witness.some((w) => w.fact === "order_status_asked" && w.detail?.key === placed.idempotencyKey)).toBe(true);
    const effects = await t.database.prisma.sideEffect.findMany({ where: { workItemId: placed.id } });
    expect(effects.map((e) => [e.outcome, e.externalRecordId])).toEqual([["committed", order.detail!.id]]);
    expect(await t.database.prisma.reviewItem.count({ where: { workItemId: placed.id, kind: "resolve_uncertain" } })).toBe(0);

    // 2. the server honours the cancellation: the inspect tool says it was never placed
    const second = new AbortController();
    const stopping = client
      .callTool({ name: "place_order", arguments: { item: "desk", ms: 5_000, onCancel: "stop" } }, { signal: second.signal })
      .catch((e: Error) => e);
    await until(() => fixture.witness.find((w) => w.fact === "order_started" && w.detail?.onCancel === "stop"), "the second order to start");
    second.abort("the user cancelled in the IDE");
    await stopping;
    const cancelled = (await items("mcp:fixture.place_order"))[1];
    expect((await settledItem(cancelled.id)).status).toBe("cancelled");
    expect(fixture.witness.some((w) => w.fact === "order_cancelled" && w.detail?.key === cancelled.idempotencyKey)).toBe(true);
    expect(fixture.witness.some((w) => w.fact === "order_placed" && w.detail?.key === cancelled.idempotencyKey)).toBe(false);
    expect(await t.database.prisma.reviewItem.count({ where: { workItemId: cancelled.id } })).toBe(0);
  });

  it("resources, prompts and completions of the upstream servers are relayed as they are (reads change nothing: no work item)", async () => {
    const client = await connect("legacy", "ide-resources");
    const before = await t.database.prisma.workItem.count();
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(expect.arrayContaining(["test://static-text", "test://static-binary"]));
    expect((await client.readResource({ uri: "test://static-text" })).contents).toEqual([
      { uri: "test://static-text", mimeType: "text/plain", text: "This is the content of the static text resource." },
    ]);
    const templated = (await client.readResource({ uri: "test://template/7/data" })).contents[0] as { text: string };
    expect(JSON.parse(templated.text)).toMatchObject({ id: "7" });
    const missing = await client.readResource({ uri: "test://no-such-resource" }).catch((e: Error & { code?: number }) => e);
    expect(missing).toBeInstanceOf(Error);
    const prompt = await client.getPrompt({ name: "test_prompt_with_arguments", arguments: { arg1: "a", arg2: "b" } });
    expect(prompt.messages[0].content).toMatchObject({ type: "text", text: "Prompt with arguments: arg1='a', arg2='b'" });
    expect(
      (await client.complete({ ref: { type: "ref/prompt", name: "test_prompt_with_arguments" }, argument: { name: "arg1", value: "pa" } })).completion.values,
    ).toEqual(["paris", "park", "party"]);
    expect(await t.database.prisma.workItem.count()).toBe(before);
  });

  it("an unknown tool is the JSON-RPC error the spec shows (-32602), and nothing is recorded", async () => {
    const client = await connect("legacy", "ide-unknown");
    const before = await t.database.prisma.workItem.count();
    const error = await client.callTool({ name: "no_such_tool", arguments: {} }).catch((e: Error & { code?: number }) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as { code?: number }).code).toBe(-32602);
    expect((error as Error).message).toMatch(/Unknown tool: no_such_tool/);
    expect(await t.database.prisma.workItem.count()).toBe(before);
  });

  it("2026-07-28: after a Stop of a client's work has settled, a new process of the same client (same name, no sessions in that revision) is not refused: its calls start a new task", async () => {
    const first = await connect("auto", "agent-same-name");
    const pending = first.callTool({ name: "count_slowly", arguments: { steps: 400, delayMs: 20 } }, { timeout: 20_000 });
    const item = await runningItem("mcp:demo.count_slowly");
    const stop = await call("POST", `/api/tasks/${item.taskId}/cancel`, {
      headers: { authorization: `Bearer ${adminToken}` },
      body: { reason: "operator pressed Stop" },
    });
    expect(stop.status).toBe(202);
    expect((await pending).isError).toBe(true);
    await until(async () => (await t.database.prisma.task.findUniqueOrThrow({ where: { id: item.taskId } })).settledAt, "the Stop to settle");

    const second = await connect("auto", "agent-same-name"); // a new process, the same client name
    const answer = await second.callTool({ name: "test_simple_text", arguments: {} });
    expect(answer.isError).toBeFalsy();
    const [made] = (await items("mcp:fixture.test_simple_text")).filter((i) => i.taskId !== item.taskId).slice(-1);
    expect(made.status).toBe("completed");
    const [oldTask, newTask] = await Promise.all([item.taskId, made.taskId].map((id) => t.database.prisma.task.findUniqueOrThrow({ where: { id } })));
    expect(oldTask.stage).toBe("cancelled");
    expect(newTask).toMatchObject({ stage: "active", title: "MCP session: agent-same-name" });
  });

  it("tasks extension: tasks/cancel is only acknowledged, the server completes the task anyway → reported completed (and a task that honours it → cancelled)", async () => {
    const client = await connect("auto", "agent-tasks");
    const session = { [SESSION_META_KEY]: "tasks-1" };
    const controller = new AbortController();
    const pending = client
      .callTool({ name: "slow_job", arguments: { ms: 500, onCancel: "finish" }, _meta: session }, { signal: controller.signal })
      .catch((e: Error) => e);
    const created = await until(() => fixture.witness.find((w) => w.fact === "task_created" && w.detail?.onCancel === "finish"), "the task to be created");
    await sleep(50);
    controller.abort("stop");
    await pending;
    const [finished] = await items("mcp:fixture.slow_job");
    const done = await settledItem(finished.id, ["running", "cancelling", "submitted", "uncertain"]);
    const taskId = created.detail!.taskId as string;
    expect(fixture.witness.filter((w) => w.detail?.taskId === taskId).map((w) => w.fact)).toEqual(
      expect.arrayContaining(["tasks_cancel_received", "task_completed"]),
    );
    expect(done.status).toBe("completed");
    expect(done.result).toMatchObject({ structuredContent: { done: true } });
    expect(gateway.tools.get("slow_job")!.set.observation(finished.id)).toMatchObject({ cancelKind: "tasks_cancel", task: { taskId, status: "completed" } });

    const honoured = new AbortController();
    const second = client
      .callTool({ name: "slow_job", arguments: { ms: 5_000, onCancel: "stop" }, _meta: session }, { signal: honoured.signal })
      .catch((e: Error) => e);
    await until(() => fixture.witness.find((w) => w.fact === "task_created" && w.detail?.onCancel === "stop"), "the second task");
    honoured.abort("stop");
    await second;
    const stoppedItem = (await items("mcp:fixture.slow_job"))[1];
    expect((await settledItem(stoppedItem.id, ["running", "cancelling", "submitted", "uncertain"])).status).toBe("cancelled");
    expect(stoppedItem.taskId).toBe(finished.taskId); // same session (_meta dev.stopline/session), same task
  });

  it("server-everything (stdio) ignores the cancellation and never answers; its tool is read-only (readOnlyHint), so the client's cancel ends the call stopped — no effect to confirm, no person asked", async () => {
    const client = await connect("legacy", "ide-everything");
    const controller = new AbortController();
    const pending = client
      .callTool({ name: "trigger-long-running-operation", arguments: { duration: 2, steps: 10 } }, { signal: controller.signal })
      .catch((e: Error) => e);
    const item = await runningItem("mcp:everything.trigger-long-running-operation");
    await until(
      () => (gateway.tools.get("trigger-long-running-operation")!.set.observation(item.id)?.progressCount ?? 0) >= 1,
      "progress from server-everything",
    );
    controller.abort("cancelled in the IDE");
    expect(await pending).toBeInstanceOf(Error);
    const row = await settledItem(item.id);
    expect(row).toMatchObject({ status: "cancelled", commitsEffect: false });
    const seen = gateway.tools.get("trigger-long-running-operation")!.set.observation(item.id)!;
    expect(seen).toMatchObject({ cancelKind: "notification", answer: null });
    expect(await t.database.prisma.reviewItem.count({ where: { workItemId: item.id } })).toBe(0);
    expect(await t.database.prisma.sideEffect.count({ where: { workItemId: item.id } })).toBe(0);
  }, 20_000);

  it("stopCalls({ toolName }) stops every running call of one tool in this process", async () => {
    const client = await connect("legacy", "ide-kill");
    const pending = client.callTool({ name: "count_slowly", arguments: { steps: 400, delayMs: 20 } }, { timeout: 20_000 });
    const item = await runningItem("mcp:demo.count_slowly");
    await sleep(100);
    expect(await gateway.stopCalls({ toolName: "count_slowly" }, "operator:incident", "kill switch: count_slowly")).toEqual([item.id]);
    const answer = await pending;
    expect(answer.isError).toBe(true);
    expect((await settledItem(item.id)).status).toBe("cancelled");
  });
});

describe("MCP gateway over stdio (npm run mcp:stdio): for clients that launch a command", () => {
  it("an IDE launches the bridge: its calls reach the gateway as one session task, and its notifications/cancelled stops the call", async () => {
    const { NODE_CHANNEL_FD: _ipc, ...env } = process.env;
    const ide = new Client({ name: "ide-stdio", version: "1.0.0" });
    await ide.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ["--import", "tsx", "scripts/mcp-stdio.ts"],
        cwd: ROOT,
        stderr: "ignore",
        env: { ...(env as Record<string, string>), STOPLINE_MCP_URL: endpoint.url, STOPLINE_TOKEN: "any" },
      }),
    );
    clients.push(ide);
    expect((await ide.listTools()).tools.map((x) => x.name)).toContain("count_slowly");
    const before = new Set((await items("mcp:demo.count_slowly")).map((i) => i.id));
    expect((await ide.callTool({ name: "count_slowly", arguments: { steps: 2, delayMs: 1 } })).structuredContent).toEqual({ counted: 2 });
    const first = (await items("mcp:demo.count_slowly")).find((i) => !before.has(i.id))!;

    const controller = new AbortController();
    const pending = ide.callTool({ name: "count_slowly", arguments: { steps: 400, delayMs: 20 } }, { signal: controller.signal }).catch((e: Error) => e);
    const item = await until(
      async () =>
        (await items("mcp:demo.count_slowly")).find((i) => !before.has(i.id) && i.id !== first.id && (i.status === "running" || i.status === "submitted")),
      "the IDE's long call",
    );
    await sleep(150);
    controller.abort("the user cancelled in the IDE");
    expect(await pending).toBeInstanceOf(Error);
    expect((await settledItem(item.id, ["running", "cancelling", "submitted", "uncertain"])).status).toBe("cancelled");
    expect(item.taskId).toBe(first.taskId); // one bridge process, one session, one task
    const stopEvent = await t.database.prisma.ledgerEvent.findFirstOrThrow({ where: { workItemId: item.id, type: "work_item.cancelling" } });
    expect(stopEvent.reason).toMatch(/the MCP client cancelled this call/);
  }, 30_000);
});

import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { CancellationEngine } from "../../../../lib/cancellation/engine";
import type { EngineOptions } from "../../../../lib/cancellation/engine-options";
import { getCancellationSummary } from "../../../../lib/cancellation/get-cancellation-summary";
import { requestCancellation } from "../../../../lib/cancellation/steps/1-record-boundary";
import { createTask } from "../../../../lib/ledger/create-task";
import { scheduleWorkItem } from "../../../../lib/ledger/schedule-work-item";
import { createTestDatabase, type TestDatabase } from "../../../../lib/db/scratch-database";
import type { ToolDefinition } from "../../../../lib/tools/contract";
import { contractProblems, ToolRegistry } from "../../../../lib/tools/registry";
import { WorkerPool } from "../../../../lib/workers/worker-pool";
import { REQUEST_CANCELLED } from "../../../../lib/tools/adapters/demo-mcp-server";
import { connectMcpTools, type McpToolSet } from "../../../../lib/tools/adapters/mcp";
import { contractFromAnnotations, outcomeOf } from "../../../../lib/tools/adapters/mcp-mapping";
import type { McpCallObservation } from "../../../../lib/tools/adapters/mcp-observation";

/**
 * The MCP adapter against two REAL MCP servers over stdio, driven by a real WorkerPool and CancellationEngine on
 * SQLite or PostgreSQL:
 * - the Stopline demo server (lib/tools/adapters/demo-mcp-server.ts), whose `count_slowly` honours
 *   `notifications/cancelled` and answers the cancelled request — reported CANCELLED;
 * - `@modelcontextprotocol/server-everything`, whose `trigger-long-running-operation` ignores the
 *   cancellation (keeps running, keeps sending progress, never answers). It is annotated read-only, and a
 *   cancelled call without effects ends stopped (test/lib/mcp-gateway/gateway.int.test.ts shows that); here it is
 *   connected as a server one does not trust (`commitsEffect: true`), so the case of an EFFECT nobody confirmed is
 *   covered: "cancellation sent but not confirmed" — uncertain, with a review item, never CANCELLED.
 * Each scenario checks the LEDGER, the SUMMARY, and what the server itself did (the demo server's witness log
 * on stderr; the progress server-everything kept sending).
 */

const ROOT = path.resolve(import.meta.dirname, "../../../..");
const DEMO_SERVER = path.join(ROOT, "lib/tools/adapters/demo-mcp-server.ts");
const EVERYTHING = path.join(ROOT, "node_modules/.bin/mcp-server-everything");
// How long after the cancel an answer still counts as its confirmation: the adapter's default (a loaded machine
// answered after 600 ms, and the child was then rightly reported "cancel sent, not confirmed").
const GRACE_MS = 2_000;
const ENGINE = { verifyDelayMs: 50, settleTimeoutMs: 1_000, cancelAttempts: 3, cancelBackoffMs: 10, cancelTimeoutMs: 5_000 } satisfies Omit<
  EngineOptions,
  "registry"
>;

let demo: McpToolSet;
let everything: McpToolSet;
const demoWitness: { witness: string; requestId?: number; counted?: number; afterCancel?: boolean }[] = [];

beforeAll(async () => {
  [demo, everything] = await Promise.all([
    connectMcpTools({
      prefix: "demo",
      confirmGraceMs: GRACE_MS,
      transport: { stdio: { command: process.execPath, args: ["--import", "tsx", DEMO_SERVER], cwd: ROOT, stderr: "pipe" } },
    }),
    connectMcpTools({
      prefix: "everything",
      tools: ["trigger-long-running-operation"],
      confirmGraceMs: GRACE_MS,
      commitsEffect: true,
      transport: { stdio: { command: EVERYTHING, args: ["stdio"], cwd: ROOT, stderr: "ignore" } },
    }),
  ]);
  let buffered = "";
  demo.stderr?.on("data", (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split("\n");
    buffered = lines.pop()!;
    for (const line of lines) if (line.startsWith("{")) demoWitness.push(JSON.parse(line));
  });
});
afterAll(async () => {
  await Promise.all([demo?.close(), everything?.close()]);
});

let t: TestDatabase;
const stops: (() => Promise<void>)[] = [];
beforeEach(async () => {
  t = await createTestDatabase();
});
afterEach(async () => {
  await new Promise((resolve) => setImmediate(resolve));
  for (const stop of stops.splice(0).reverse()) await stop();
  await t.drop();
});

const countSlowly = () => demo.tools.find((x) => x.name === "demo.count_slowly")!;
const longRunning = () => everything.tools.find((x) => x.name === "everything.trigger-long-running-operation")!;

function boot(tools: ToolDefinition<any, any>[]) {
  const registry = new ToolRegistry();
  for (const tool of tools) registry.register(tool);
  const pool = new WorkerPool({ database: t.database, registry, concurrency: 4, pollMs: 20 });
  const engine = new CancellationEngine(t.database, { registry, ...ENGINE });
  engine.start(60_000); // maintenance passes are run by the tests themselves
  pool.start();
  stops.push(
    () => pool.stop(),
    () => engine.stop(),
  );
  return { engine };
}

const newTask = (title: string) => createTask(t.database, { title, ownerId: "alice", riskLevel: "low" }, "agent:test");
const schedule = (taskId: string, tool: ToolDefinition<any, any>, input: unknown) =>
  scheduleWorkItem(
    t.database,
    { taskId, kind: tool.kind, toolName: tool.name, mechanism: tool.mechanism, commitsEffect: tool.commitsEffect, intentVersion: 1, input },
    "agent:test",
  );
const item = (id: string) => t.database.prisma.workItem.findUniqueOrThrow({ where: { id } });
const events = (taskId: string, type?: string) =>
  t.database.prisma.ledgerEvent.findMany({ where: { taskId, ...(type ? { type } : {}) }, orderBy: { seq: "asc" } });
const reviews = (taskId: string) => t.database.prisma.reviewItem.findMany({ where: { taskId }, orderBy: { createdAt: "asc" } });
const reconcileSteps = async (taskId: string, workItemId: string) =>
  (await events(taskId, "cancellation.step"))
    .filter((e) => e.workItemId === workItemId && (e.data as { action?: string }).action === "reconcile")
    .map((e) => e.reason);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor<T>(probe: () => Promise<T> | T, what: string, timeoutMs = 10_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}
const progressed = (set: McpToolSet, workItemId: string, n: number) =>
  waitFor(() => (set.observation(workItemId)?.progressCount ?? 0) >= n, `${n} progress notifications for ${workItemId}`);

async function stop(engine: CancellationEngine, taskId: string) {
  await requestCancellation(t.database, { taskId, reason: "user pressed Stop", actor: "user:alice" });
  await new Promise((resolve) => setImmediate(resolve));
  await engine.run(taskId);
}

describe("MCP adapter: contract from the server's tools", () => {
  it("annotations decide commitsEffect and risk; every tool registers as provider_cancel with cancel() and inspect()", () => {
    expect(contractFromAnnotations({ name: "a", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } })).toEqual({
      commitsEffect: false,
      risk: "low",
    });
    expect(contractFromAnnotations({ name: "b", inputSchema: { type: "object" } })).toEqual({ commitsEffect: true, risk: "high" });
    expect(contractFromAnnotations({ name: "c", inputSchema: { type: "object" }, annotations: { readOnlyHint: false, destructiveHint: false } })).toEqual({
      commitsEffect: true,
      risk: "low",
    });
    expect(countSlowly()).toMatchObject({ kind: "remote_tool", mechanism: "provider_cancel", commitsEffect: false, risk: "low" });
    expect(longRunning()).toMatchObject({ kind: "remote_tool", mechanism: "provider_cancel", commitsEffect: true, risk: "low" }); // the override
    for (const tool of [countSlowly(), longRunning()]) expect(contractProblems(tool as ToolDefinition)).toEqual([]);
    expect(demo.server?.name).toBe("stopline-demo");
  });

  it("outcomeOf never turns silence into a stop", () => {
    const base: McpCallObservation = {
      workItemId: "w",
      callId: "w:1",
      tool: "x",
      requestId: 1,
      sentAt: 1_000,
      notSent: null,
      lastProgress: null,
      progressCount: 0,
      cancelSentAt: 2_000,
      cancelReason: "stop",
      cancelSendError: null,
      progressAfterCancel: 0,
      answer: null,
      connectionClosedAt: null,
      cancelKind: "notification",
      era: "legacy",
      task: null,
    };
    expect(outcomeOf(base, 500, 10_000)).toMatchObject({ status: "unknown", reason: expect.stringMatching(/^cancellation sent but not confirmed/) });
    expect(outcomeOf({ ...base, cancelSentAt: null }, 500, 10_000)).toEqual({ status: "running" });
    expect(outcomeOf({ ...base, progressAfterCancel: 2, lastProgress: { progress: 3, at: 9_900 } }, 500, 10_000)).toEqual({ status: "running" });
    expect(outcomeOf({ ...base, progressAfterCancel: 2, lastProgress: { progress: 3, at: 3_000 } }, 500, 10_000).status).toBe("unknown");
    expect(
      outcomeOf({ ...base, answer: { at: 2_100, afterCancel: true, kind: "error", error: { code: REQUEST_CANCELLED, message: "cancelled" } } }, 500),
    ).toEqual({ status: "not_committed" });
    expect(outcomeOf({ ...base, answer: { at: 2_100, afterCancel: true, kind: "result", isError: false, result: { content: [] } } }, 500).status).toBe(
      "committed",
    );
    expect(outcomeOf({ ...base, connectionClosedAt: 2_500 }, 500).status).toBe("unknown");
  });
});

describe("MCP adapter: Stop against real servers over stdio", () => {
  it("the demo server honours notifications/cancelled and answers the request → CANCELLED", async () => {
    const tool = countSlowly();
    const { engine } = boot([tool]);
    const task = await newTask("count with the demo server");
    const child = await schedule(task.id, tool, { steps: 200, delayMs: 25 });
    await progressed(demo, child.id, 3);
    await stop(engine, task.id);

    // what the server did: received the cancel, stopped, counted nothing more
    // The server's witness lines come over its stderr pipe, which may lag behind the engine's pass under load.
    const requestId = demo.observation(child.id)!.requestId;
    await vi.waitFor(() => expect(demoWitness.filter((w) => w.requestId === requestId).map((w) => w.witness)).toContain("stopped"), { timeout: 5_000 });
    const seen = demo.observation(child.id)!;
    const mine = demoWitness.filter((w) => w.requestId === seen.requestId);
    expect(mine.map((w) => w.witness)).toContain("cancel_received");
    expect(mine.map((w) => w.witness)).toContain("stopped");
    expect(mine.filter((w) => w.witness === "step" && w.afterCancel)).toEqual([]);
    expect(mine.map((w) => w.witness)).not.toContain("completed");
    // what the adapter observed: the cancel went out, the server answered it with a cancellation error
    expect(seen.cancelSentAt).not.toBeNull();
    expect(seen.answer).toMatchObject({ kind: "error", afterCancel: true, error: { code: REQUEST_CANCELLED } });

    // ledger
    const row = await item(child.id);
    expect(row.status).toBe("cancelled");
    // the call commits nothing: its runner knew it stopped (nothing was left to ask the server)
    expect(await reconcileSteps(task.id, child.id)).toEqual([]);
    expect(await reviews(task.id)).toEqual([]);
    // summary
    const s = await getCancellationSummary(t.database, task.id);
    expect(s.status).toBe("CANCELLED");
    expect(s.cancelled_tool_calls).toEqual([
      { tool_call_id: child.correlationId, tool_name: "demo.count_slowly", cancellation_status: "CANCELLED", partial_result: null, orphaned_resources: [] },
    ]);
    expect(s.uncertain_tool_calls).toEqual([]);
    expect(s.user_message).toMatch(/One running step stopped\./);
  });

  it("server-everything keeps running after the cancel and never answers → cancellation sent but not confirmed: uncertain + review, never CANCELLED", async () => {
    const tool = longRunning();
    const { engine } = boot([tool]);
    const task = await newTask("a long operation on server-everything");
    const child = await schedule(task.id, tool, { duration: 3, steps: 15 }); // a progress notification every 200 ms
    await progressed(everything, child.id, 1);
    await stop(engine, task.id);

    // right after the Stop: the server is still sending progress for the cancelled request → "running", not cancelled
    const early = everything.observation(child.id)!;
    expect(early.cancelSentAt).not.toBeNull();
    expect(early.progressAfterCancel).toBeGreaterThan(0);
    expect(early.answer).toBeNull();
    expect(await reconcileSteps(task.id, child.id)).toEqual(["the service says: running"]);
    expect((await item(child.id)).status).toBe("uncertain");
    const during = await getCancellationSummary(t.database, task.id);
    expect(during.cancelled_tool_calls).toEqual([]);
    expect(during.uncertain_tool_calls.map((c) => c.tool_call_id)).toEqual([child.correlationId]);
    expect(during.status).not.toBe("CANCELLED");

    // the operation runs to its end (progress 15/15) and no result ever arrives; the next pass asks again
    await waitFor(() => everything.observation(child.id)?.lastProgress?.progress === 15, "the operation's last progress notification");
    await sleep(GRACE_MS + 100);
    await engine.maintain();
    const late = everything.observation(child.id)!;
    expect(late.answer).toBeNull();
    expect(late.progressAfterCancel).toBeGreaterThanOrEqual(early.progressAfterCancel);

    // ledger: uncertain, with the reason, and a person asked to resolve it
    const row = await item(child.id);
    expect(row.status).toBe("uncertain");
    expect((await reconcileSteps(task.id, child.id)).at(-1)).toMatch(
      /the service says: unknown \(cancellation sent but not confirmed: .*progress continued \d+ time\(s\) after the cancel .*15\/15.*without a result\)/,
    );
    const open = await reviews(task.id);
    expect(open.map((r) => ({ kind: r.kind, workItemId: r.workItemId, status: r.status }))).toEqual([
      { kind: "resolve_uncertain", workItemId: child.id, status: "open" },
    ]);
    expect(open[0].subject).toMatch(/cancellation sent but not confirmed/);
    expect((await events(task.id)).filter((e) => e.workItemId === child.id && e.toState === "cancelled")).toEqual([]);

    // summary: not cancelled, not completed — uncertain, and it says so
    const s = await getCancellationSummary(t.database, task.id);
    expect(s.status).toBe("PARTIALLY_CANCELLED");
    expect(s.cancelled_tool_calls).toEqual([]);
    expect(s.completed_tool_calls).toEqual([]);
    expect(s.uncertain_tool_calls).toEqual([
      {
        tool_call_id: child.correlationId,
        tool_name: "everything.trigger-long-running-operation",
        status: "uncertain",
        reconcile_deadline: row.reconcileDeadline!.toISOString(),
      },
    ]);
    expect(s.user_message).toMatch(/not yet confirmed/);
    expect(s.user_message).not.toMatch(/stopped\./);
  });

  it("one Stop, both servers: the same summary reports the demo call CANCELLED and the server-everything call uncertain", async () => {
    const { engine } = boot([countSlowly(), longRunning()]);
    const task = await newTask("two MCP calls");
    const honours = await schedule(task.id, countSlowly(), { steps: 200, delayMs: 25 });
    const ignores = await schedule(task.id, longRunning(), { duration: 2, steps: 10 });
    await Promise.all([progressed(demo, honours.id, 2), progressed(everything, ignores.id, 1)]);
    await stop(engine, task.id);

    expect((await item(honours.id)).status).toBe("cancelled");
    expect((await item(ignores.id)).status).toBe("uncertain");
    const s = await getCancellationSummary(t.database, task.id);
    expect(s.cancelled_tool_calls.map((c) => [c.tool_call_id, c.cancellation_status])).toEqual([[honours.correlationId, "CANCELLED"]]);
    expect(s.uncertain_tool_calls.map((c) => c.tool_call_id)).toEqual([ignores.correlationId]);
    expect(s.status).toBe("PARTIALLY_CANCELLED");
    expect(s.user_message).toMatch(/One running step stopped\..*not yet confirmed/);
  });

  it("a result that still arrives after the cancel is reported completed, not cancelled", async () => {
    const tool = countSlowly();
    const { engine } = boot([tool]);
    const task = await newTask("count that finishes anyway");
    const child = await schedule(task.id, tool, { steps: 12, delayMs: 25, onCancel: "finish" });
    await progressed(demo, child.id, 2);
    await stop(engine, task.id);
    await waitFor(() => demo.observation(child.id)?.answer, "the late result");
    if ((await item(child.id)).status !== "completed") await engine.maintain(); // the first inspect may have seen progress only

    const seen = demo.observation(child.id)!;
    expect(seen.answer).toMatchObject({ kind: "result", afterCancel: true, isError: false });
    const row = await item(child.id);
    expect(row.status).toBe("completed");
    expect(row.result).toMatchObject({ structuredContent: { counted: 12 } });
    const s = await getCancellationSummary(t.database, task.id);
    // never "cancelled": it could not be stopped, and finished (the seed's UNRECOVERABLE)
    expect(s.cancelled_tool_calls.map((c) => c.cancellation_status)).toEqual(["UNRECOVERABLE"]);
    expect(s.tool_calls[0].outcome.kind).toBe("could_not_stop_finished");
    expect(s.completed_tool_calls.map((c) => c.tool_call_id)).toEqual([child.correlationId]);
    expect(s.status).not.toBe("CANCELLED");
  });

  it("a call that is not stopped returns the server's result", async () => {
    const tool = countSlowly();
    boot([tool]);
    const task = await newTask("count to three");
    const child = await schedule(task.id, tool, { steps: 3, delayMs: 5 });
    await waitFor(async () => (await item(child.id)).status === "completed", "the call to complete");
    expect((await item(child.id)).result).toMatchObject({ structuredContent: { counted: 3 } });
    expect(demo.observation(child.id)).toMatchObject({ progressCount: 3, cancelSentAt: null, answer: { kind: "result", afterCancel: false } });
  });
});

describe("MCP adapter: Streamable HTTP", () => {
  let proc: ChildProcess | undefined;
  let remote: McpToolSet | undefined;
  afterEach(async () => {
    await remote?.close();
    proc?.kill("SIGTERM");
  });

  it("tools of a server reached by URL are called, stopped and reported the same way (server-everything over Streamable HTTP)", async () => {
    const port = await freePort();
    const { NODE_CHANNEL_FD: _ipc, ...env } = process.env;
    proc = spawn(EVERYTHING, ["streamableHttp"], { cwd: ROOT, env: { ...env, PORT: String(port) }, stdio: ["ignore", "ignore", "pipe"] });
    await new Promise<void>((resolve, reject) => {
      let out = "";
      proc!.stderr!.on("data", (d: Buffer) => {
        out += d.toString();
        if (out.includes("listening on port")) resolve();
      });
      proc!.once("exit", (code) => reject(new Error(`server-everything exited (${code}): ${out}`)));
    });
    // as above: a server one does not trust (effects assumed), so the unconfirmed cancel is an effect nobody confirmed
    remote = await connectMcpTools({
      prefix: "remote",
      tools: ["trigger-long-running-operation"],
      confirmGraceMs: GRACE_MS,
      commitsEffect: true,
      transport: { url: `http://127.0.0.1:${port}/mcp` },
    });
    const tool = remote.tools[0];
    expect(tool.name).toBe("remote.trigger-long-running-operation");
    const { engine } = boot([tool]);

    const quick = await newTask("a short operation over HTTP");
    const done = await schedule(quick.id, tool, { duration: 0.3, steps: 3 });
    await waitFor(async () => (await item(done.id)).status === "completed", "the short operation to complete");
    expect(remote.observation(done.id)).toMatchObject({ progressCount: 3, answer: { kind: "result", afterCancel: false } });

    const task = await newTask("a long operation over HTTP");
    const child = await schedule(task.id, tool, { duration: 2, steps: 10 });
    await progressed(remote, child.id, 1);
    await stop(engine, task.id);
    expect(remote.observation(child.id)?.cancelSentAt).not.toBeNull();
    expect((await item(child.id)).status).toBe("uncertain");
    const s = await getCancellationSummary(t.database, task.id);
    expect(s.cancelled_tool_calls).toEqual([]);
    expect(s.uncertain_tool_calls.map((c) => c.tool_call_id)).toEqual([child.correlationId]);
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

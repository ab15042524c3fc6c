import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testEngine } from "../../../lib/db/scratch-database";
import type { ToolContext, ToolDefinition } from "../../../lib/tools/contract";
import { createStopline, stoplineContext } from "../../../lib/sdk/ai";
import { runWorker } from "../../../lib/sdk/worker";
import { eventually, startSdkTestServer, type SdkTestServer } from "../../support/sdk/server";

/**
 * Written ahead (issue 19) in the SDK's runner: a tool run by `runWorker` over HTTP that declares `resources` has its
 * intents on the server BEFORE its run() starts (the tool itself reads the server's ledger when it starts), a handle
 * named by `ctx.holdResource` binds its intent, and a normal return settles the kinds it never named as not held.
 */
const provider = testEngine();
let s: SdkTestServer;
beforeAll(async () => {
  s = await startSdkTestServer();
}, 60_000);
afterAll(async () => s?.close());

const intentsOf = (workItemId: string) => s.t.database.prisma.resourceIntent.findMany({ where: { workItemId }, orderBy: { type: "asc" } });

describe(`written ahead in runWorker (${provider})`, () => {
  it("records one intent per declared kind before run(), binds the one the answer names, settles the other as not held", async () => {
    const seenAtStart: { type: string; state: string }[][] = [];
    const tool: ToolDefinition<unknown, unknown> = {
      name: "sdk.written_ahead",
      kind: "remote_tool",
      risk: "low",
      commitsEffect: false,
      mechanism: "abort_signal",
      resources: ["lock", "temp_file"],
      inspect: async () => ({ status: "not_committed", holds: [] }),
      async run(_input, ctx: ToolContext) {
        seenAtStart.push((await intentsOf(ctx.workItemId)).map((i) => ({ type: i.type, state: i.state })));
        await ctx.holdResource("lock", "lock-1"); // the service's answer named the lock; no temp file was made
        await ctx.releaseResource("lock", "lock-1");
        return { ok: true };
      },
    };
    const task = await s.agent.createTask({ title: "sdk: written ahead" });
    const item = await s.agent.scheduleWorkItem(task.id, {
      kind: "remote_tool",
      toolName: tool.name,
      mechanism: "abort_signal",
      intentVersion: task.intentVersion,
      input: {},
    });
    const stop = new AbortController();
    const done = runWorker({ client: s.worker, tools: [tool], workerId: "sdk-written-ahead", leaseMs: 5_000, pollMs: 50, host: false, signal: stop.signal });
    await eventually(
      async () => (await s.t.database.prisma.workItem.findUniqueOrThrow({ where: { id: item.id } })).status === "completed" || undefined,
      "the item completed",
      20_000,
    );
    stop.abort();
    await done;

    expect(seenAtStart).toEqual([
      [
        { type: "lock", state: "open" },
        { type: "temp_file", state: "open" },
      ],
    ]);
    const intents = await intentsOf(item.id);
    const lock = await s.t.database.prisma.resource.findFirstOrThrow({ where: { workItemId: item.id, type: "lock" } });
    expect(intents.map((i) => [i.type, i.state, i.key, i.resourceId])).toEqual([
      ["lock", "bound", item.idempotencyKey, lock.id],
      ["temp_file", "not_held", item.idempotencyKey, null],
    ]);
    const events = await s.t.database.prisma.ledgerEvent.findMany({ where: { workItemId: item.id }, orderBy: { seq: "asc" }, select: { type: true } });
    const types = events.map((e) => e.type);
    expect(types.indexOf("resource.intended")).toBeGreaterThan(types.indexOf("work_item.claimed"));
    expect(types.indexOf("resource.intended")).toBeLessThan(types.indexOf("resource.held"));
  });

  it("the AI SDK wrapper: stop.resources are recorded before execute runs; the named one is bound, the other not held", async () => {
    const stopline = createStopline({ client: s.agent, worker: s.worker, workerId: "ai-written-ahead", host: false });
    const task = await stopline.startTask({ title: "ai: written ahead" });
    const seenAtStart: { type: string; state: string }[][] = [];
    const tools = stopline.wrapTools(task, {
      exportReport: {
        tool: {
          execute: async (_input: unknown, options: { toolCallId: string }) => {
            const ctx = stoplineContext(options)!;
            seenAtStart.push((await intentsOf(ctx.workItemId)).map((i) => ({ type: i.type, state: i.state })));
            await ctx.holdResource("temp_file", "/tmp/ai-export.csv");
            return { rows: 3 };
          },
        },
        stop: { mechanism: "abort_signal", resources: ["lock", "temp_file"], inspect: async () => ({ status: "not_committed", holds: [] }) },
      },
    });
    expect(() => stopline.wrapTools(task, { bad: { tool: { execute: async () => null }, stop: { mechanism: "abort_signal", resources: ["lock"] } } })).toThrow(
      /declares resources but has no inspect/,
    );
    try {
      await tools.exportReport.execute!({}, { toolCallId: "ai-call-1" });
    } finally {
      task.close();
      await stopline.close();
    }
    const item = await s.t.database.prisma.workItem.findFirstOrThrow({ where: { taskId: task.id, correlationId: "ai-call-1" } });
    expect(item.status).toBe("completed");
    expect(seenAtStart).toEqual([
      [
        { type: "lock", state: "open" },
        { type: "temp_file", state: "open" },
      ],
    ]);
    expect((await intentsOf(item.id)).map((i) => [i.type, i.state])).toEqual([
      ["lock", "not_held"],
      ["temp_file", "bound"],
    ]);
  });
});

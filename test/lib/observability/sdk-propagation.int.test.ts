import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "../../../lib/auth/tokens";
import { createTask } from "../../../lib/ledger/create-task";
import { scheduleWorkItem } from "../../../lib/ledger/schedule-work-item";
import { StoplineClient } from "../../../lib/sdk/client";
import { runWorker } from "../../../lib/sdk/worker";
import { startHttpApiServer, type HttpApiServer } from "../../support/http-api-server";
import { createTestDatabase, type TestDatabase } from "../../../lib/db/scratch-database";
import type { ToolDefinition } from "../../../lib/tools/contract";
import { toolCallSpan, traceparentOf } from "../../../lib/observability/ids";

/**
 * A tool call's trace context reaches a worker of the SDK over the HTTP API: the claim answers the call's traceparent
 * and runWorker hands it to the tool (`ctx.traceparent`), which sends it on to the service it calls.
 */
let t: TestDatabase;
let http: HttpApiServer;
beforeAll(async () => {
  t = await createTestDatabase();
  t.install();
  http = await startHttpApiServer();
});
afterAll(async () => {
  await http?.close();
  await t?.drop();
});

describe("trace context to SDK workers", () => {
  it("runWorker's tool gets ctx.traceparent: the tool call's span in its task's trace, as the claim answered it", async () => {
    const token = (await createApiToken(t.database, { name: "sdk-worker", role: "worker" })).token;
    const seen: (string | undefined)[] = [];
    const tool: ToolDefinition<unknown, unknown> = {
      name: "sdk.echo",
      kind: "local_worker",
      risk: "low",
      commitsEffect: false,
      mechanism: "abort_signal",
      run: async (_input, ctx) => {
        seen.push(ctx.traceparent);
        return "ok";
      },
    };
    const task = await createTask(t.database, { title: "echo", ownerId: "alice" }, "agent:test");
    const child = await scheduleWorkItem(
      t.database,
      { taskId: task.id, kind: "local_worker", toolName: "sdk.echo", mechanism: "abort_signal", intentVersion: 1 },
      "agent:test",
    );
    const stop = new AbortController();
    const worker = runWorker({ client: new StoplineClient({ baseUrl: http.url, token }), tools: [tool], workerId: "sdk-1", pollMs: 20, signal: stop.signal });
    const deadline = Date.now() + 10_000;
    while ((await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: child.id } })).status !== "completed") {
      if (Date.now() > deadline) throw new Error("the SDK worker did not complete the call");
      await new Promise((r) => setTimeout(r, 20));
    }
    stop.abort();
    await worker;
    const row = await t.database.prisma.workItem.findUniqueOrThrow({ where: { id: child.id } });
    expect(seen).toEqual([traceparentOf(toolCallSpan(row), false)]);
  });
});

import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureNode22, type Node22 } from "../../../scripts/node22";
import { startDemoServer, type DemoServer } from "../../../lib/demo/server";
import { witnessLog } from "../../../lib/demo/store";
import { StoplineClient } from "../../../lib/sdk/index";
import { spawnProcess, type TestProcess } from "../../support/sdk/processes";
import { eventually, startSdkTestServer, type SdkTestServer } from "../../support/sdk/server";

/**
 * AI SDK 7 (the current major; it needs Node 22) beside AI SDK 6 (ai.int.test.ts, Node 20): the same example agent
 * (examples/ai-sdk) run in a Node 22 process with `ai` 7 and its MockLanguageModelV4, against the app's real API over
 * HTTP with the cancellation engine running; Stop is pressed from here while the export runs, and the summary is held
 * to the reports service's own record. Runs on the SQLite project only (the agent is the subject, not the database).
 */

const ROOT = path.resolve(import.meta.dirname, "../../..");
let node22: Node22;
let s: SdkTestServer;
let demo: DemoServer;
let admin: StoplineClient;
let agent: TestProcess | null = null;

describe.skipIf(process.env.STOPLINE_TEST_DB === "postgres")("AI SDK 7 on Node 22: the example agent, stopped mid-tool", () => {
  beforeAll(async () => {
    [node22, s, demo] = await Promise.all([ensureNode22(), startSdkTestServer(), startDemoServer({ file: ":memory:" })]);
    admin = new StoplineClient({ baseUrl: s.http.url, token: s.tokens.admin, retry: { baseDelayMs: 20, maxDelayMs: 200 } });
  }, 900_000);
  afterAll(async () => {
    await agent?.kill();
    await demo?.close();
    await s?.close();
  });

  it("Stop from the API while exportReport runs: the ai 7 loop ends, the model is not asked again, the export is cancelled at the service, and the summary matches the service's record", async () => {
    agent = spawnProcess(
      "ai7-agent",
      node22.node,
      ["--import", "tsx", "--import", "./test/support/sdk/ai-versions.mjs", "test/support/sdk/ai7-agent.ts"],
      {
        STOPLINE_URL: s.http.url,
        STOPLINE_TOKEN: s.tokens.admin,
        STOPLINE_DEMO_URL: demo.url,
      },
      ROOT,
    );
    const started = await agent.next("task", 60_000);
    expect(started).toMatchObject({ status: 200, spec: "v4" });
    expect(String(started.node)).toMatch(/^v22\./);
    expect(String(started.ai)).toMatch(/^7\./);
    const taskId = String(started.taskId);

    const exportId = await eventually(
      async () => {
        const begun = witnessLog(demo.db, "reports").find((w) => w.action === "export_started");
        if (!begun) return undefined;
        const row = (await (await fetch(`${demo.url}/reports/exports/${begun.subject}`)).json()) as { rowsWritten: number };
        return row.rowsWritten > 20 ? begun.subject! : undefined;
      },
      "the export to be writing rows",
      30_000,
      20,
    );

    expect((await admin.cancel(taskId, { reason: "the user pressed Stop" })).kind).toBe("boundary");
    const done = await agent.next("done", 30_000);
    expect(done.doStreamCalls).toBe(2); // never asked for a third step after the Stop

    const summary = await admin.waitForCancellation(taskId, { timeoutMs: 30_000 });
    const record = witnessLog(demo.db, "reports").filter((w) => w.subject === exportId);
    expect(record.map((w) => w.action)).toContain("export_cancelled");
    expect(record.map((w) => w.action)).not.toContain("export_completed");
    const rowsWritten = (record.find((w) => w.action === "export_cancelled")!.detail as { rowsWritten: number }).rowsWritten;

    const detail = await admin.getTask(taskId);
    const byName = (name: string) => detail.workItems.filter((w) => w.toolName === name);
    expect(byName("model:mock:agent7").map((w) => [w.kind, w.status])).toEqual([
      ["model_request", "completed"],
      ["model_request", "completed"],
    ]);
    expect(byName("checkStock").map((w) => [w.correlationId, w.status])).toEqual([["call-stock", "completed"]]);
    expect(byName("exportReport")[0]).toMatchObject({
      correlationId: "call-export",
      mechanism: "provider_cancel",
      status: "partial",
      operationId: exportId,
      partialResult: { exportId, rowsWritten },
    });
    expect(summary.status).toBe("CANCELLED");
    expect(summary.cancelled_tool_calls).toEqual([
      expect.objectContaining({
        tool_call_id: "call-export",
        tool_name: "exportReport",
        cancellation_status: "CANCELLED",
        partial_result: { marker: "PARTIAL_RESULT", value: { exportId, rowsWritten } },
      }),
    ]);
    expect(summary.uncertain_tool_calls).toEqual([]);
  }, 120_000);
});

import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CancellationSummarySchema } from "../../../lib/api/schemas";
import { testEngine } from "../../../lib/db/scratch-database";
import { spawnTsx, type TestProcess } from "../../support/sdk/processes";
import { startSdkTestServer, type SdkTestServer } from "../../support/sdk/server";

/**
 * examples/agent.ts and examples/external-worker.ts run as they would against `npm start`: separate processes
 * that know only STOPLINE_URL and STOPLINE_TOKEN, here pointed at the real route handlers served over HTTP
 * with the cancellation engine beside them.
 */

const provider = testEngine();
const EXAMPLES = path.resolve(import.meta.dirname, "../../../examples");

let s: SdkTestServer;
const started: TestProcess[] = [];
beforeAll(async () => {
  s = await startSdkTestServer();
}, 60_000);
afterAll(async () => {
  await Promise.all(started.map((p) => p.kill("SIGKILL")));
  await s?.close();
});

/** The JSON the agent prints after "Cancellation summary (…):". */
function printedSummary(stdout: string) {
  const match = /Cancellation summary \(\w+\):\n(\{[\s\S]*?\n\})\n/.exec(stdout);
  if (!match) throw new Error(`no summary in the agent's output:\n${stdout}`);
  return CancellationSummarySchema.parse(JSON.parse(match[1]));
}

describe(`the examples against a running app (${provider})`, () => {
  it("the agent creates a task, schedules three counts, presses Stop, follows the events and prints the settled summary; the external worker keeps partial results", async () => {
    const worker = spawnTsx("external-worker", path.join(EXAMPLES, "external-worker.ts"), [], {
      STOPLINE_URL: s.http.url,
      STOPLINE_TOKEN: s.tokens.worker,
      STOPLINE_WORKER_ID: "example-worker",
      STOPLINE_HEARTBEAT_MS: "300",
    });
    started.push(worker);
    await worker.printed("serving example.slow_count");

    const agent = spawnTsx("agent", path.join(EXAMPLES, "agent.ts"), [], {
      STOPLINE_URL: s.http.url,
      STOPLINE_TOKEN: s.tokens.agent,
      STOPLINE_STOP_AFTER_MS: "1500",
      STOPLINE_AGENT_TIMEOUT_MS: "40000",
    });
    started.push(agent);
    const { code } = await agent.exited;
    expect(code, `agent stdout:\n${agent.stdout()}\nstderr:\n${agent.stderr()}\nworker stdout:\n${worker.stdout()}\nstderr:\n${worker.stderr()}`).toBe(0);

    const out = agent.stdout();
    const taskId = /created task (\S+)/.exec(out)![1];
    expect(out).toMatch(/Stop recorded at .*: intent version 2/);
    expect(out).toContain("task.cancel_requested"); // it followed the events
    const summary = printedSummary(out);
    expect(summary).toMatchObject({ task_id: taskId, status: "CANCELLED" });
    expect(summary.cancelled_tool_calls.map((c) => c.tool_call_id).sort()).toEqual(["count-1", "count-2", "count-3"]);
    for (const call of summary.cancelled_tool_calls) {
      // each count was running when Stop arrived and kept the numbers counted so far
      expect(call).toMatchObject({ tool_name: "example.slow_count", cancellation_status: "CANCELLED", partial_result: { marker: "PARTIAL_RESULT" } });
      const value = call.partial_result!.value as { counted: number; of: number };
      expect(value.counted).toBeGreaterThan(0);
      expect(value.counted).toBeLessThan(value.of);
    }
    expect(summary.user_message).toContain("Three partial results kept");
    expect(out.trimEnd().endsWith(summary.user_message)).toBe(true);

    // the ledger agrees with what was printed, and the worker saw each Stop through its heartbeat
    const items = await s.t.database.prisma.workItem.findMany({ where: { taskId } });
    expect(items.map((i) => i.status)).toEqual(["partial", "partial", "partial"]);
    expect(worker.stdout().match(/stop {6}\S+: the heartbeat reported the Stop/g)).toHaveLength(3);
    expect(worker.stdout().match(/settled {3}\S+ → partial/g)).toHaveLength(3);

    // Ctrl-C / SIGTERM: the worker stops claiming and exits cleanly
    const exit = await worker.kill("SIGTERM");
    expect(exit.code, worker.stderr()).toBe(0);
    expect(worker.stdout()).toContain("worker stopped");
  }, 90_000);

  it("the agent without a token explains how to create one", async () => {
    const agent = spawnTsx("agent-no-token", path.join(EXAMPLES, "agent.ts"), [], { STOPLINE_URL: s.http.url, STOPLINE_TOKEN: "" });
    started.push(agent);
    expect((await agent.exited).code).toBe(2);
    expect(agent.stderr()).toContain("npm run token:create -- --role agent");
  });
});

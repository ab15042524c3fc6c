import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureNode22 } from "../../../scripts/node22";
import { startDemoServer, type DemoServer } from "../../../lib/demo/server";
import { witnessLog } from "../../../lib/demo/store";
import { StoplineClient } from "../../../lib/sdk/index";
import { spawnProcess, type TestProcess } from "../../support/sdk/processes";
import { eventually, startSdkTestServer, type SdkTestServer } from "../../support/sdk/server";

/**
 * repairToolResults (lib/sdk/ai-repair.ts) with AI SDK 6 (Node 20) and AI SDK 7 (Node 22): the same agent process
 * (test/support/sdk/repair-agent.ts) runs a real streamText loop whose tool exports a report at the demo reports
 * service; Stop is pressed from here while rows are being written. The AI SDK leaves the aborted call without a result
 * (state input-available); after repairToolResults the UI message, its model messages, and the prompt the next turn's
 * model receives all carry "stopped; N rows kept (partial)" — N as the reports service itself recorded it. Runs on the
 * SQLite project only (the agent is the subject, not the database).
 */

const ROOT = path.resolve(import.meta.dirname, "../../..");
let s: SdkTestServer;
let demo: DemoServer;
let admin: StoplineClient;
const agents: TestProcess[] = [];

beforeAll(async () => {
  [s, demo] = await Promise.all([startSdkTestServer(), startDemoServer({ file: ":memory:" })]);
  admin = new StoplineClient({ baseUrl: s.http.url, token: s.tokens.admin, retry: { baseDelayMs: 20, maxDelayMs: 200 } });
}, 900_000);
afterAll(async () => {
  for (const a of agents) await a.kill();
  await demo?.close();
  await s?.close();
});

async function stoppedAndAsked(runtime: { node: string; preload: string[] }, major: string) {
  const agent = spawnProcess(
    `repair-agent-ai${major}`,
    runtime.node,
    ["--import", "tsx", ...runtime.preload, "test/support/sdk/repair-agent.ts"],
    {
      STOPLINE_URL: s.http.url,
      STOPLINE_TOKEN: s.tokens.admin,
      STOPLINE_DEMO_URL: demo.url,
    },
    ROOT,
  );
  agents.push(agent);
  const started = await agent.next("task", 60_000);
  expect(String(started.ai)).toMatch(new RegExp(`^${major}\\.`));
  const before = new Set(
    witnessLog(demo.db, "reports")
      .filter((w) => w.action === "export_started")
      .map((w) => w.subject),
  );
  const exportId = await eventually(
    async () => {
      const begun = witnessLog(demo.db, "reports").find((w) => w.action === "export_started" && !before.has(w.subject));
      if (!begun) return undefined;
      const row = (await (await fetch(`${demo.url}/reports/exports/${begun.subject}`)).json()) as { rowsWritten: number };
      return row.rowsWritten > 20 ? begun.subject! : undefined;
    },
    "the export to be writing rows",
    30_000,
    20,
  );
  expect((await admin.cancel(String(started.taskId), { reason: "the user pressed Stop" })).kind).toBe("boundary");

  const stopped = await agent.next("stopped", 30_000);
  const repaired = await agent.next("repaired", 60_000);
  const rows = (witnessLog(demo.db, "reports").find((w) => w.subject === exportId && w.action === "export_cancelled")!.detail as { rowsWritten: number })
    .rowsWritten;
  const kept = `stopped; ${rows.toLocaleString("en-US")} ${rows === 1 ? "row" : "rows"} kept (partial)`;
  return { stopped, repaired, kept };
}

type Part = Record<string, unknown>;
const exportPart = (ui: unknown) =>
  ((ui as { role: string; parts: Part[] }[]).find((m) => m.role === "assistant")?.parts ?? []).find((p) => p.toolCallId === "call-export");
const toolResults = (messages: unknown) => (messages as { role: string; content: Part[] }[]).filter((m) => m.role === "tool").flatMap((m) => m.content);

function expectTruthful({ stopped, repaired, kept }: Awaited<ReturnType<typeof stoppedAndAsked>>) {
  // as the AI SDK left it: the call without a result — the model would not know 1,425 rows were written
  expect(exportPart(stopped.ui)).toMatchObject({ toolCallId: "call-export" });
  expect(exportPart(stopped.ui)!.state).not.toBe("output-available");
  // repaired: the UI message, its model messages, the model messages repaired directly, and the next model's prompt
  expect(exportPart(repaired.ui)).toMatchObject({ state: "output-available", output: kept, input: { rows: 2_000, rowMs: 5 } });
  expect(toolResults(repaired.model)).toEqual([expect.objectContaining({ toolCallId: "call-export", output: { type: "text", value: kept } })]);
  expect(toolResults(repaired.fromModel)).toEqual([expect.objectContaining({ toolCallId: "call-export", output: { type: "text", value: kept } })]);
  expect(JSON.stringify(repaired.prompt)).toContain(kept);
}

describe.skipIf(process.env.STOPLINE_TEST_DB === "postgres")("repairToolResults: a stopped turn's history made truthful", () => {
  it("AI SDK 6 (Node 20): the aborted export's tool call reads 'stopped; N rows kept (partial)' in the UI message, the model messages and the next model's prompt", async () => {
    expectTruthful(await stoppedAndAsked({ node: process.execPath, preload: [] }, "6"));
  }, 120_000);

  it("AI SDK 7 (Node 22): the same", async () => {
    const node22 = await ensureNode22();
    expectTruthful(await stoppedAndAsked({ node: node22.node, preload: ["--import", "./test/support/sdk/ai-versions.mjs"] }, "7"));
  }, 900_000);
});

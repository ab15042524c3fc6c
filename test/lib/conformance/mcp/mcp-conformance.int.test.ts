import path from "node:path";
import { describe, expect, it } from "vitest";
import { startFixtureServer } from "../../../support/mcp-gateway/fixture-server";
import { McpRace, McpVerdict } from "../../../../lib/conformance/mcp/judge";
import { formatMcpReport, mcpLies, runMcpConformance, type McpConformanceReport } from "../../../../lib/conformance/mcp/run-mcp-conformance";

/**
 * The MCP cancellation conformance pack against two real servers over stdio:
 * - the official `@modelcontextprotocol/server-everything` — its report must say what that server really does:
 *   `trigger-long-running-operation` ignores notifications/cancelled (its progress runs on to the total, no answer),
 *   `echo` answers before any cancel can reach it, `simulate-research-query`'s task is "cancelled" by tasks/cancel
 *   (with nothing to check it against), it does not offer 2026-07-28, and it tells no lie;
 * - dishonest-server.ts — it must FAIL: "cancelled" answered while its own inspect tool shows the order placed, and a
 *   task "cancelled" whose export ran to the end; its honest tools get their honest verdicts.
 * - the MCP gateway's SDK 2.x fixture server over Streamable HTTP, for what neither speaks: 2026-07-28 (the SDK closes
 *   the response stream), a dropped stream on both revisions, and tasks/cancel of the tasks extension — each checked
 *   against the fixture's own witness log.
 * All three run in about 30 s.
 */
const ROOT = path.resolve(import.meta.dirname, "../../../..");
const row = (report: McpConformanceReport, tool: string, race: McpRace, revision = 0) =>
  report.revisions[revision].results.find((r) => r.tool === tool && r.race === race)!;

// No database: run once, on the SQLite project.
describe.skipIf(process.env.STOPLINE_TEST_DB === "postgres")("MCP cancellation conformance pack", () => {
  it("server-everything: ignores the cancel of its long-running operation, answers echo before a cancel, tells no lie", async () => {
    const report = await runMcpConformance(
      { command: process.execPath, args: [path.join(ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js"), "stdio"] },
      { tools: ["echo", "trigger-long-running-operation", "simulate-research-query"], args: { "trigger-long-running-operation": { duration: 1, steps: 4 } } },
    );
    const text = formatMcpReport(report);
    expect(report.revisions.map((r) => r.revision)).toEqual(["2025-11-25", "2026-07-28"]);
    expect(report.revisions[0].server, text).toMatch(/everything/);
    expect(report.revisions[1].notOffered, text).toMatch(/2026-07-28/);
    const long = row(report, "trigger-long-running-operation", McpRace.midCall);
    expect(long.verdict, text).toBe(McpVerdict.ignores);
    expect(long.told, text).toMatch(/^no answer \(notifications\/cancelled\)/);
    expect(long.did, text).toMatch(/progress went on to 4\/4 after the cancel/);
    expect(row(report, "echo", McpRace.midCall).verdict, text).toBe(McpVerdict.notReached);
    expect(row(report, "echo", McpRace.beforeSend).verdict, text).toBe(McpVerdict.honours);
    expect(row(report, "echo", McpRace.afterResult).verdict, text).toBe(McpVerdict.unverified); // no witness: only "still answers ping"
    const task = row(report, "simulate-research-query", McpRace.tasksCancel);
    expect(task.told, text).toMatch(/^task "cancelled"/);
    expect(task.verdict, text).toBe(McpVerdict.unverified);
    expect(row(report, "echo", McpRace.streamClosed).verdict, text).toBe(McpVerdict.notApplicable); // stdio
    expect(mcpLies(report), text).toEqual([]);
  }, 60_000);

  it('the dishonest fixture fails: "cancelled" answered while the order was placed, a task "cancelled" that ran to the end', async () => {
    const report = await runMcpConformance(
      { command: process.execPath, args: ["--import", "tsx", path.join(ROOT, "lib/conformance/mcp/dishonest-server.ts")] },
      // draft_note's witness is the server's resource instead of its declared inspect tool (--inspect draft_note=resource:orders://{idempotencyKey}@key).
      {
        races: [McpRace.midCall, McpRace.tasksCancel],
        revisions: ["2025-11-25"],
        tools: ["place_order", "send_report", "draft_note", "export_rows"],
        inspect: { draft_note: { resource: "orders://{idempotencyKey}", idempotencyKeyArgument: "key" } },
      },
    );
    const text = formatMcpReport(report);
    const lies = mcpLies(report);
    expect(lies.map((l) => `${l.tool} ${l.race}`).sort(), text).toEqual(["export_rows tasks_cancel", "place_order cancel_mid_call"]);
    expect(row(report, "place_order", McpRace.midCall).finding, text).toMatch(
      /told the client "cancelled": Order cancelled\. — but inspect tool order_status says it took effect/,
    );
    expect(row(report, "export_rows", McpRace.tasksCancel).finding, text).toMatch(/"cancelled".*— but inspect tool order_status says it took effect/);
    expect(row(report, "send_report", McpRace.midCall).verdict, text).toBe(McpVerdict.ignores);
    expect(row(report, "draft_note", McpRace.midCall).verdict, text).toBe(McpVerdict.honours);
    expect(row(report, "draft_note", McpRace.midCall).did, text).toMatch(/^resource orders:\/\/conf-.* says it did not take effect/);
    expect(text).toMatch(/LIES about: place_order: cancel mid-call; export_rows: tasks\/cancel/);
  }, 60_000);

  it("an SDK 2.x server over HTTP: 2026-07-28 stops on the closed stream; 2025-11-25 takes a dropped stream for a cancel; tasks/cancel is followed to the task's end", async () => {
    const fixture = await startFixtureServer();
    try {
      const report = await runMcpConformance(
        { url: fixture.url },
        {
          tools: ["place_order", "slow_job"],
          races: [McpRace.midCall, McpRace.streamClosed, McpRace.tasksCancel],
          args: { place_order: { item: "book", ms: 1_500 }, slow_job: { ms: 400, onCancel: "finish" } },
          inspect: { place_order: { tool: "order_status", arguments: { key: "{idempotencyKey}" }, idempotencyKeyArgument: "key" } },
        },
      );
      const text = formatMcpReport(report);
      const facts = fixture.witness.map((w) => w.fact);
      expect(
        report.revisions.map((r) => [r.revision, r.notOffered]),
        text,
      ).toEqual([
        ["2025-11-25", null],
        ["2026-07-28", null],
      ]);
      // 2026-07-28: the SDK closes the stream, the fixture's handler aborts and places nothing — and the witness agrees.
      const modern = row(report, "place_order", McpRace.midCall, 1);
      expect(modern.verdict, text).toBe(McpVerdict.honours);
      expect(modern.told, text).toMatch(/the SDK closed the response stream \(2026-07-28\)/);
      expect(row(report, "place_order", McpRace.streamClosed, 1).verdict, text).toBe(McpVerdict.honours);
      // 2025-11-25: a dropped stream stops it too — what 2025-11-25 says a server SHOULD NOT do; the report says so.
      expect(row(report, "place_order", McpRace.streamClosed, 0).finding, text).toMatch(/SHOULD NOT be taken for a cancel/);
      // tasks/cancel on a job that finishes anyway: acknowledged, then "completed" — ignored, and said so.
      const task = row(report, "slow_job", McpRace.tasksCancel, 1);
      expect(task.verdict, text).toBe(McpVerdict.ignores);
      expect(task.told, text).toBe('task "completed"');
      expect(facts).toContain("tasks_cancel_received");
      expect(facts.filter((f) => f === "order_cancelled").length).toBeGreaterThanOrEqual(3); // the three stops the report calls honoured
      expect(mcpLies(report), text).toEqual([]);
    } finally {
      await fixture.close();
    }
  }, 60_000);
});

import path from "node:path";
import { describe, expect, it } from "vitest";
import { McpRace, McpVerdict } from "./judge";
import { formatMcpReport, mcpLies, runMcpConformance, type McpConformanceReport } from "./run-mcp-conformance";

/**
 * The MCP cancellation conformance pack against two real servers over stdio:
 * - the official `@modelcontextprotocol/server-everything` — its report must say what that server really does:
 *   `trigger-long-running-operation` ignores notifications/cancelled (its progress runs on to the total, no answer),
 *   `echo` answers before any cancel can reach it, `simulate-research-query`'s task is "cancelled" by tasks/cancel
 *   (with nothing to check it against), it does not offer 2026-07-28, and it tells no lie;
 * - dishonest-server.ts — it must FAIL: "cancelled" answered while its own inspect tool shows the order placed, and a
 *   task "cancelled" whose export ran to the end; its honest tools get their honest verdicts.
 * Both run in about 20 s.
 */
const ROOT = path.resolve(import.meta.dirname, "../../..");
const row = (report: McpConformanceReport, tool: string, race: McpRace) => report.revisions[0].results.find((r) => r.tool === tool && r.race === race)!;

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

  it("the dishonest fixture fails: \"cancelled\" answered while the order was placed, a task \"cancelled\" that ran to the end", async () => {
    const report = await runMcpConformance(
      { command: process.execPath, args: ["--import", "tsx", path.join(import.meta.dirname, "dishonest-server.ts")] },
      { races: [McpRace.midCall, McpRace.tasksCancel], revisions: ["2025-11-25"], tools: ["place_order", "send_report", "draft_note", "export_rows"] },
    );
    const text = formatMcpReport(report);
    const lies = mcpLies(report);
    expect(lies.map((l) => `${l.tool} ${l.race}`).sort(), text).toEqual(["export_rows tasks_cancel", "place_order cancel_mid_call"]);
    expect(row(report, "place_order", McpRace.midCall).finding, text).toMatch(/told the client "cancelled": Order cancelled\. — but inspect tool order_status says it took effect/);
    expect(row(report, "export_rows", McpRace.tasksCancel).finding, text).toMatch(/"cancelled".*— but inspect tool order_status says it took effect/);
    expect(row(report, "send_report", McpRace.midCall).verdict, text).toBe(McpVerdict.ignores);
    expect(row(report, "draft_note", McpRace.midCall).verdict, text).toBe(McpVerdict.honours);
    expect(text).toMatch(/LIES about: place_order: cancel mid-call; export_rows: tasks\/cancel/);
  }, 60_000);
});

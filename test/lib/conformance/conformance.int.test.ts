import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../lib/db/scratch-database";
import { conformanceSubjects } from "../../../lib/conformance/subjects";
import { failedCases, formatTable, runConformance, type CaseResult, type ConformanceSubject } from "../../../lib/conformance/run-conformance";
import { StoppedError, type ToolDefinition } from "../../../lib/tools/contract";
import { Verdict, type ServiceSays } from "../../../lib/conformance/verdict";

/**
 * The stop-conformance kit in CI (issue 13): every demo tool and both adapters (HTTP job, MCP) pass the seeds' race list —
 * nothing Stopline reports is contradicted by the tool's own service — and the deliberately dishonest example tool
 * fails it (the kit can fail).
 */
let t: TestDatabase;
let world: Awaited<ReturnType<typeof conformanceSubjects>>;
beforeAll(async () => {
  t = await createTestDatabase();
  world = await conformanceSubjects();
}, 60_000);
afterAll(async () => {
  await world?.close();
  await t?.drop();
});

/**
 * A summariser with no inspect() — its author's own record (a log by idempotency key) is the witness the kit asks.
 * The honest one stops at its AbortSignal; the lying one ignores it, finishes the work, and then claims a confirmed stop.
 */
function summariser(honest: boolean): { tool: ToolDefinition<{ pages: number }>; witness: (ref: { idempotencyKey: string }) => Promise<ServiceSays> } {
  const log = new Map<string, "running" | "done" | "stopped">();
  const tool: ToolDefinition<{ pages: number }> = {
    name: honest ? "example.summarise" : "example.summarise_lying",
    kind: "local_worker",
    risk: "low",
    commitsEffect: false,
    mechanism: "abort_signal",
    async run(input, ctx) {
      log.set(ctx.idempotencyKey, "running");
      for (let page = 0; page < input.pages; page++) {
        if (ctx.signal.aborted && honest) {
          log.set(ctx.idempotencyKey, "stopped");
          throw ctx.signal.reason;
        }
        await new Promise((r) => setTimeout(r, 20));
      }
      log.set(ctx.idempotencyKey, "done");
      if (ctx.signal.aborted) throw new StoppedError("stopped: nothing was summarised"); // the lying one's claim
      return { summary: `${input.pages} pages` };
    },
  };
  const says = { running: "running", done: "committed", stopped: "not_committed" } as const;
  return { tool, witness: async (ref) => says[log.get(ref.idempotencyKey)!] ?? "not_committed" };
}

const HONEST = [
  "shop.check_stock",
  "shop.create_order",
  "crm.create_record",
  "mailer.send_email",
  "reports.export_report",
  "inference.generate",
  "adapter.http_job",
  "adapter_mcp.count_slowly",
];
/** Reads whose tool has no inspect() (and the demo world no per-call record of them): nothing can confirm their reports. inference.generate can be asked by its key. */
const UNCHECKABLE = ["shop.check_stock"];
const ran = (r: CaseResult) => r.verdict !== Verdict.notApplicable;

describe("the stop-conformance kit", () => {
  it.each(HONEST)(
    "%s passes every case",
    async (name) => {
      const subject = world.subjects.get(name) as ConformanceSubject;
      const results = await runConformance(t.database, subject);
      const table = formatTable(name, results);
      expect(failedCases(results), table).toEqual([]);
      // Every case ran or says why it does not apply, and every case that ran reached its point (it tested something).
      expect(results).toHaveLength(9);
      expect(
        results.filter((r) => r.verdict === Verdict.notReached),
        table,
      ).toEqual([]);
      if (UNCHECKABLE.includes(name)) {
        // No inspect(): the kit says it could not check, rather than passing what nobody confirmed.
        expect(
          results.filter(ran).map((r) => r.verdict),
          table,
        ).toEqual(results.filter(ran).map(() => Verdict.unverified));
        expect(table).toContain("unverified: the tool has no inspect() and no witness");
      } else {
        expect(
          results.filter((r) => r.verdict === Verdict.unverified),
          table,
        ).toEqual([]);
        expect(results.filter((r) => r.verdict === Verdict.pass).length, table).toBeGreaterThanOrEqual(4);
      }
    },
    180_000,
  );

  it("a deliberately dishonest tool fails: Stopline was told it stopped, the service shows the order; and it commits without the checkpoint", async () => {
    const results = await runConformance(t.database, world.subjects.get("example.dishonest_order")!);
    const table = formatTable("example.dishonest_order", results);
    expect(
      failedCases(results).map((r) => [r.case, r.verdict]),
      table,
    ).toEqual(
      expect.arrayContaining([
        ["stop_during_read", Verdict.overclaim],
        ["stop_before_commitment", Verdict.noCheckpoint],
      ]),
    );
    expect(table).toContain("FAIL");
    // Not one case of it may read as a pass on a point it never reached.
    expect(
      results.filter((r) => r.stopline.startsWith("(not reached") && r.verdict === Verdict.pass),
      table,
    ).toEqual([]);
    // It never reports submitting: the reply-lost case has no reply to lose, and says so instead of passing.
    expect(
      results.find((r) => r.case === "reply_lost_after_commit"),
      table,
    ).toMatchObject({ verdict: Verdict.notReached, stopline: expect.stringContaining("no reply to lose") });
  }, 180_000);

  it("a tool with no inspect() is judged by its author's witness hook: the honest summariser passes, the one that finishes its work and claims a stop fails", async () => {
    const honest = summariser(true);
    const good = await runConformance(t.database, { tool: honest.tool as ToolDefinition, input: { pages: 10 }, witness: honest.witness });
    const goodTable = formatTable("example.summarise", good);
    expect(failedCases(good), goodTable).toEqual([]);
    expect(
      good.filter(ran).map((r) => r.verdict),
      goodTable,
    ).toEqual(good.filter(ran).map(() => Verdict.pass));

    const lying = summariser(false);
    const bad = await runConformance(t.database, { tool: lying.tool as ToolDefinition, input: { pages: 10 }, witness: lying.witness });
    const badTable = formatTable("example.summarise_lying", bad);
    expect(
      bad.find((r) => r.case === "stop_during_read"),
      badTable,
    ).toMatchObject({ reported: "stopped", service: "committed", verdict: Verdict.overclaim });
    expect(badTable).toContain("FAIL");
  }, 120_000);
});

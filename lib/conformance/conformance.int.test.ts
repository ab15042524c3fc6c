import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../testing/test-database";
import { conformanceSubjects } from "./subjects";
import { failedCases, formatTable, runConformance, type CaseResult, type ConformanceSubject } from "./run-conformance";
import { Verdict } from "./verdict";

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

const HONEST = ["shop.check_stock", "shop.create_order", "crm.create_record", "mailer.send_email", "reports.export_report", "inference.generate", "adapter.http_job", "adapter_mcp.count_slowly"];
/** Reads whose tool has no inspect() (and the demo world no per-call record of them): nothing can confirm their reports. */
const UNCHECKABLE = ["shop.check_stock", "inference.generate"];
const ran = (r: CaseResult) => r.verdict !== Verdict.notApplicable;

describe("the stop-conformance kit", () => {
  it.each(HONEST)("%s passes every case", async (name) => {
    const subject = world.subjects.get(name) as ConformanceSubject;
    const results = await runConformance(t.database, subject);
    const table = formatTable(name, results);
    expect(failedCases(results), table).toEqual([]);
    // Every case ran or says why it does not apply, and every case that ran reached its point (it tested something).
    expect(results).toHaveLength(9);
    expect(results.filter((r) => r.verdict === Verdict.notReached), table).toEqual([]);
    if (UNCHECKABLE.includes(name)) {
      // No inspect(): the kit says it could not check, rather than passing what nobody confirmed.
      expect(results.filter(ran).map((r) => r.verdict), table).toEqual(results.filter(ran).map(() => Verdict.unverified));
      expect(table).toContain("unverified: the tool has no inspect() and no witness");
    } else {
      expect(results.filter((r) => r.verdict === Verdict.unverified), table).toEqual([]);
      expect(results.filter((r) => r.verdict === Verdict.pass).length, table).toBeGreaterThanOrEqual(4);
    }
  }, 180_000);

  it("a deliberately dishonest tool fails: Stopline was told it stopped, the service shows the order; and it commits without the checkpoint", async () => {
    const results = await runConformance(t.database, world.subjects.get("example.dishonest_order")!);
    const table = formatTable("example.dishonest_order", results);
    expect(failedCases(results).map((r) => [r.case, r.verdict]), table).toEqual(expect.arrayContaining([
      ["stop_during_read", Verdict.overclaim],
      ["stop_before_commitment", Verdict.noCheckpoint],
    ]));
    expect(table).toContain("FAIL");
    // Not one case of it may read as a pass on a point it never reached.
    expect(results.filter((r) => r.stopline.startsWith("(the call ended before this point)") && r.verdict === Verdict.pass), table).toEqual([]);
  }, 180_000);
});

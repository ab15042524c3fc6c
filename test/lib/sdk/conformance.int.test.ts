import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dishonestOrderTool } from "../../../lib/conformance/dishonest-tool";
import { createOrderTool } from "../../support/http-order-service";
import { failedCases, formatConformanceTable, runStopConformance, Verdict } from "../../../lib/sdk/index";
import { startSdkTestServer, type SdkTestServer } from "../../support/sdk/server";

/**
 * The SDK's stop-conformance kit (issue 13), as a tool author runs it: against a real Stopline server over HTTP, the
 * tool served by the SDK's worker. An honest tool (the order tool the server also registers, with inspect) passes the
 * cases the protocol lets an author stage; the dishonest example fails.
 */
let s: SdkTestServer;
beforeAll(async () => {
  s = await startSdkTestServer();
}, 60_000);
afterAll(async () => s?.close());

describe("runStopConformance (SDK, over HTTP)", () => {
  it("an honest order tool passes; the cases that need the server's hands say where they run", async () => {
    const results = await runStopConformance({
      agent: s.agent,
      worker: s.worker,
      tool: createOrderTool(s.service.url),
      input: { items: [{ sku: "chair", qty: 1 }] },
    });
    const table = formatConformanceTable("shop.create_order (SDK)", results);
    expect(failedCases(results), table).toEqual([]);
    expect(
      results.filter((r) => r.verdict === Verdict.pass).map((r) => r.case),
      table,
    ).toEqual([
      "stop_before_dispatch",
      "stop_during_read",
      "stop_before_commitment",
      "stop_during_submission",
      "stop_after_success",
      "reply_lost_after_commit",
    ]);
    expect(table).toContain("PASS");
    if (process.env.SHOW_TABLE) console.log(table);
  }, 240_000);

  it("the dishonest example tool fails", async () => {
    const results = await runStopConformance({
      agent: s.agent,
      worker: s.worker,
      tool: dishonestOrderTool(),
      input: { item: "chair" },
      cases: ["stop_during_read"],
    });
    expect(
      failedCases(results).map((r) => r.verdict),
      formatConformanceTable("example.dishonest_order (SDK)", results),
    ).toEqual([Verdict.overclaim]);
  }, 120_000);
});

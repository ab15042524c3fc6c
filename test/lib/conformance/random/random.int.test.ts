import { describe, expect, it } from "vitest";
import { testEngine } from "../../../../lib/db/scratch-database";
import { FAILING_KINDS, FindingKind } from "../../../../lib/conformance/random/judge";
import { countByKind, formatFindings, runRandom } from "../../../../lib/conformance/random/run-random";

/**
 * The random (+ crash) mode of the stop-conformance kit in CI (issue 19 §3), sized to a couple of minutes per
 * database: it catches a deliberately planted lying tool by itself, and a slice of random scenarios and one crash
 * set run and are judged by the services.
 *
 * Both require 0 failing findings (an overclaim, a hidden effect, an unreported resource …); each prints its table with
 * the seed and index that replay a finding. EXPECT_NO_FINDINGS / EXPECT_NO_CRASH_FINDINGS = false would only print.
 */
const EXPECT_NO_FINDINGS = true;
const EXPECT_NO_CRASH_FINDINGS = true;
const db = testEngine();
const SLICE = Number(process.env.RANDOM_SLICE ?? 24);
const CRASH_SLICE = Number(process.env.RANDOM_CRASH_SLICE ?? 4);
/**
 * A scenario the kit could not run (KIT ERROR: the ledger itself timed out on a machine at load 40+, seen on the shared
 * PostgreSQL) tested nothing; the slice needs most of its scenarios judged, and says which were not.
 */
const judged = (run: Awaited<ReturnType<typeof runRandom>>) => run.results.filter((r) => !r.findings.some((f) => f.kind === FindingKind.kitError)).length;
const SEED = Number(process.env.RANDOM_SEED ?? 1919);

describe(`the random conformance mode on ${db}`, () => {
  it("catches a planted dishonest shop.create_order (orders at once, claims a clean stop) by itself: OVERCLAIM, with the seed and index to replay it", async () => {
    const run = await runRandom({ count: 8, seed: 7, db, tools: ["shop.create_order"], plant: "dishonest_order", batch: 2 });
    const table = formatFindings(run, { seed: 7, db });
    const caught = run.failing.filter((r) => r.findings.some((f) => f.kind === FindingKind.overclaim && f.detail.includes("shop.create_order")));
    expect(caught.length, table).toBeGreaterThan(0);
    expect(table).toMatch(/^7 │ \d+ │ OVERCLAIM │ shop\.create_order/m);
  }, 180_000);

  it(`a slice of ${SLICE} random scenarios over the demo tools runs and is judged by the services`, async () => {
    const run = await runRandom({ count: SLICE, seed: SEED, db, batch: 4 });
    const table = formatFindings(run, { seed: SEED, db });
    console.log(table);
    expect(run.results, table).toHaveLength(SLICE);
    expect(judged(run), table).toBeGreaterThanOrEqual(SLICE / 2);
    if (EXPECT_NO_FINDINGS) expect(run.failing, table).toEqual([]);
    else console.log(`findings by kind: ${JSON.stringify(countByKind(run))}`);
  }, 240_000);

  it(`a crash set of ${CRASH_SLICE} scenarios (kill -9 of the app or a worker, then a restart) runs and is judged by the services`, async () => {
    const run = await runRandom({ count: CRASH_SLICE, seed: SEED, db, batch: 4, crash: true });
    const table = formatFindings(run, { seed: SEED, db, crash: true });
    console.log(table);
    expect(run.results, table).toHaveLength(CRASH_SLICE);
    expect(judged(run), table).toBeGreaterThanOrEqual(CRASH_SLICE / 2);
    if (EXPECT_NO_CRASH_FINDINGS)
      expect(
        run.failing.filter((r) => r.findings.some((f) => FAILING_KINDS.includes(f.kind))),
        table,
      ).toEqual([]);
  }, 240_000);
});

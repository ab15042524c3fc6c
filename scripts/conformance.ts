/**
 * The stop-conformance kit (issue 13): runs the seeds' race list against a registered tool and prints, per case,
 * what Stopline reported, what the tool's own service says, and the verdict; exits non-zero on any overclaim
 * (OVERCLAIM) or a commitment that ran without passing its checkpoint (NO CHECKPOINT).
 *   npm run conformance -- --tool shop.create_order
 *   npm run conformance -- --all            (every demo tool, the HTTP job adapter, and the dishonest example)
 *   npm run conformance -- --list
 *   npm run conformance -- --mcp <url | stdio command> [--tools a,b]   (an MCP server's cancellation behaviour: lib/conformance/mcp)
 *   npm run conformance -- --random 2000 --seed 7 [--crash] [--db postgres] [--batch 4] [--only 12 | --from 1000] [--tool <name>]
 *     (the random mode, lib/conformance/random: N random scenarios over the demo tools — random Stop moments, faults,
 *     double Stops, approvals, and with --crash a kill -9 of the app or a worker — judged by the services' witness)
 * It runs on a fresh embedded ledger of its own, with the real engine and worker code, against the tools' real
 * services (the demo world and a job service, started for the run).
 */
import { parseArgs } from "node:util";
import { createTestDatabase } from "../lib/db/scratch-database";
import { conformanceSubjects } from "../lib/conformance/subjects";
import { failedCases, formatTable, runConformance } from "../lib/conformance/run-conformance";

// --mcp <url or stdio command> [--tools a,b]: the MCP cancellation conformance pack (lib/conformance/mcp), on its own.
if (process.argv.includes("--mcp")) process.exit(await (await import("../lib/conformance/mcp/cli")).mcpConformanceCli(process.argv.slice(2)));
const { values } = parseArgs({
  options: {
    tool: { type: "string", multiple: true },
    all: { type: "boolean" },
    list: { type: "boolean" },
    random: { type: "string" },
    seed: { type: "string" },
    crash: { type: "boolean" },
    db: { type: "string" },
    batch: { type: "string" },
    only: { type: "string", multiple: true },
    from: { type: "string" },
  },
});
process.env.STOPLINE_VERIFY_DELAY_MS ??= "50";
if (values.random !== undefined) process.exit(await runRandomMode(values));
const world = await conformanceSubjects();
let failed = 0;
try {
  if (values.list || (!values.all && !values.tool?.length)) {
    console.log(`Tools the kit can run (--tool <name>, or --all):\n${[...world.subjects.keys()].map((n) => `  ${n}`).join("\n")}`);
    if (!values.list) process.exitCode = 2;
  } else {
    const names = values.all ? [...world.subjects.keys()] : values.tool!;
    const unknown = names.filter((n) => !world.subjects.has(n));
    if (unknown.length) throw new Error(`no tool ${unknown.join(", ")} — run with --list`);
    const ledger = await createTestDatabase("sqlite");
    try {
      for (const name of names) {
        const results = await runConformance(ledger.database, world.subjects.get(name)!);
        console.log(formatTable(name, results));
        if (failedCases(results).length) failed++;
      }
    } finally {
      await ledger.drop();
    }
    process.exitCode = failed ? 1 : 0;
  }
} catch (error) {
  console.error((error as Error).message);
  process.exitCode = 2;
} finally {
  await world.close();
}
process.exit(process.exitCode ?? 0);

async function runRandomMode(v: typeof values): Promise<number> {
  const { runRandomCli } = await import("../lib/conformance/random/cli");
  return runRandomCli({ random: v.random!, seed: v.seed, crash: v.crash, db: v.db, batch: v.batch, only: v.only, from: v.from, tool: v.tool });
}

import { formatFindings, runRandom } from "./run-random";

/**
 * `npm run conformance -- --random N …` (scripts/conformance.ts hands its options here): runs the random mode,
 * prints the findings table, and answers the exit code — 1 on any overclaim, mismatch, hidden effect, unreported
 * resource or stale "still running"; 2 on a usage error.
 */
export async function runRandomCli(v: {
  random: string;
  seed?: string;
  crash?: boolean;
  db?: string;
  batch?: string;
  only?: string[];
  tool?: string[];
}): Promise<number> {
  const count = Number(v.random);
  const seed = v.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(v.seed);
  const db = v.db ?? "sqlite";
  const only = v.only?.flatMap((o) => o.split(",")).map(Number);
  if (
    !Number.isInteger(count) ||
    count < 1 ||
    !Number.isInteger(seed) ||
    (db !== "sqlite" && db !== "postgres") ||
    only?.some((i) => !Number.isInteger(i) || i < 0)
  ) {
    console.error(
      "usage: npm run conformance -- --random <N ≥ 1> [--seed <integer>] [--crash] [--db sqlite|postgres] [--batch <slots>] [--only <index>] [--tool <name>]",
    );
    return 2;
  }
  if (db === "postgres")
    process.env.TEST_PG_URL ??= process.env.DATABASE_URL?.startsWith("postgres") ? process.env.DATABASE_URL : "postgresql://postgres@127.0.0.1:5432/postgres";
  console.log(
    `random conformance: seed ${seed}${only ? `, only ${only.join(", ")}` : `, ${count} scenario(s)`} on ${db}${v.crash ? ", with kill -9 of the app or a worker" : ""}`,
  );
  const run = await runRandom({
    count,
    seed,
    db,
    crash: v.crash,
    only,
    plant: process.env.RANDOM_PLANT === "dishonest_order" ? "dishonest_order" : undefined,
    batch: v.batch ? Number(v.batch) : undefined,
    tools: v.tool,
    onResult: (r, done, total) => {
      if (process.env.RANDOM_TRACE) process.stderr.write(`  #${r.scenario.index} ${r.ms} ms ${r.status}\n`);
      if (r.findings.length || done % 100 === 0 || done === total)
        process.stderr.write(`  ${done}/${total}${r.findings.length ? ` — #${r.scenario.index}: ${r.findings.map((f) => f.kind).join(", ")}` : ""}\n`);
    },
  });
  console.log(formatFindings(run, { seed, db, crash: v.crash }));
  return run.failing.length ? 1 : 0;
}

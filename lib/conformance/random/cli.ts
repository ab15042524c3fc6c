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
  from?: string;
  tool?: string[];
}): Promise<number> {
  const count = Number(v.random);
  const seed = v.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(v.seed);
  const db = v.db ?? "sqlite";
  const only = v.only?.flatMap((o) => o.split(",")).map(Number);
  // --from K: indexes K … N-1 of the run — one long run split over several sittings, each the same scenarios.
  const from = v.from === undefined ? 0 : Number(v.from);
  if (
    !Number.isInteger(count) ||
    count < 1 ||
    !Number.isInteger(seed) ||
    (db !== "sqlite" && db !== "postgres") ||
    only?.some((i) => !Number.isInteger(i) || i < 0) ||
    !Number.isInteger(from) ||
    from < 0 ||
    from >= count ||
    (from > 0 && only !== undefined)
  ) {
    console.error(
      "usage: npm run conformance -- --random <N ≥ 1> [--seed <integer>] [--crash] [--db sqlite|postgres] [--batch <slots>] [--only <index> | --from <index < N>] [--tool <name>]",
    );
    return 2;
  }
  if (db === "postgres")
    process.env.TEST_PG_URL ??= process.env.DATABASE_URL?.startsWith("postgres") ? process.env.DATABASE_URL : "postgresql://postgres@127.0.0.1:5432/postgres";
  console.log(
    `random conformance: seed ${seed}${only ? `, only ${only.join(", ")}` : from ? `, scenarios ${from}–${count - 1} of ${count}` : `, ${count} scenario(s)`} on ${db}${v.crash ? ", with kill -9 of the app or a worker" : ""}`,
  );
  const run = await runRandom({
    count,
    seed,
    db,
    crash: v.crash,
    only: scenarioIndexes(count, only, from),
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

/** Which scenarios of a run of `count` to run: the listed ones, or `from` … count-1 (undefined: all of them). */
export function scenarioIndexes(count: number, only: number[] | undefined, from: number): number[] | undefined {
  if (only?.length) return only;
  return from > 0 ? Array.from({ length: count - from }, (_, i) => from + i) : undefined;
}

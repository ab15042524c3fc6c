/**
 * BENCH_SMOKE=1: every benchmark in a size of seconds, as `npm test` runs them (scripts/test/benches.ts) — to prove
 * that each still runs to its end and prints its JSON line, not to measure: smoke figures are not comparable with
 * the full sizes (run those by hand: `npm run bench:…`).
 */
export const SMOKE = process.env.BENCH_SMOKE === "1";

/** The full size, or the smoke size under BENCH_SMOKE=1. */
export const size = <T>(full: T, smoke: T): T => (SMOKE ? smoke : full);

if (SMOKE) console.log("BENCH_SMOKE=1: smoke sizes (checks that the benchmark runs; the figures are not comparable with a full run)");

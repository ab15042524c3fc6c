/**
 * The benchmarks `npm test` runs in their smoke size (BENCH_SMOKE=1, bench/smoke.ts): each must run to its end and
 * print, as its last line, one JSON object whose every figure is a number — a benchmark that stopped working
 * (a page that changed, an API that moved) fails the test command instead of rotting until someone measures.
 * Full sizes stay manual: `npm run bench:…`.
 */
export interface Bench {
  script: string;
  needs?: "postgres" | "browser";
}

export const BENCHES: Bench[] = [
  { script: "bench:ledger" },
  { script: "bench:cancel" },
  { script: "bench:stop-ui", needs: "browser" },
  { script: "bench:pg", needs: "postgres" },
];

/** Why the output is not a finished benchmark, or null: the last line must be a JSON object of finite numbers. */
export function benchOutputProblem(stdout: string): string | null {
  const last = stdout.trimEnd().split("\n").at(-1)?.trim() ?? "";
  if (!last) return "it printed nothing";
  let figures: unknown;
  try {
    figures = JSON.parse(last);
  } catch {
    return `its last line is not JSON: ${last.slice(0, 200)}`;
  }
  if (typeof figures !== "object" || figures === null || Array.isArray(figures)) return `its last line is not a JSON object: ${last.slice(0, 200)}`;
  const entries = Object.entries(figures);
  if (!entries.length) return "its JSON line has no figures";
  const bad = entries.filter(([, v]) => typeof v !== "number" || !Number.isFinite(v)).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  return bad.length ? `figures that are not numbers: ${bad.join(", ")}` : null;
}

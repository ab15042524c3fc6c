import type { PgDirect } from "../../lib/db/pg";

// What PostgreSQL really does with a hot-path statement: the statement as the code sends it, captured, then planned
// and run under EXPLAIN (ANALYZE) in a transaction that is rolled back.

/** A node of a PostgreSQL plan (EXPLAIN … FORMAT JSON). */
export type PlanNode = Record<string, unknown> & { Plans?: PlanNode[] };

/** Every node of a plan, depth first. */
export const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

/**
 * The CTEs a plan reads again for each row of another part of it — a nested loop over two CTEs, quadratic in the
 * batch: a CTE scan run more than once, or a Materialize run more than once over a CTE scan, returning more than the
 * one row (`now`, the clock) a per-row read may return.
 */
export function rereadCtes(plan: PlanNode): string[] {
  const many = (n: PlanNode) => (n["Actual Loops"] as number) > 1 && (n["Actual Rows"] as number) > 1;
  const cteScans = (n: PlanNode) => nodesOf(n).filter((m) => m["Node Type"] === "CTE Scan" && (m["Actual Rows"] as number) > 1);
  return nodesOf(plan).flatMap((n) => {
    if (n["Node Type"] === "CTE Scan" && many(n)) return [n["CTE Name"] as string];
    if (n["Node Type"] === "Materialize" && many(n)) return cteScans(n).map((m) => m["CTE Name"] as string);
    return [];
  });
}

/** The rows a scan node read: those it returned over all its loops, and those its filter removed. */
export const rowsRead = (n: PlanNode) => (n["Actual Rows"] as number) * (n["Actual Loops"] as number) + ((n["Rows Removed by Filter"] as number) ?? 0);

/** The scan nodes of a plan that read `table` or one of its indexes (a bitmap index scan names only its index). */
export const scansOf = (plan: PlanNode, table: string) =>
  nodesOf(plan).filter((n) => n["Relation Name"] === table || String(n["Index Name"] ?? "").startsWith(`${table}_`));

/** The names of the named statements `pg` sends from now on, until `stop` (none when there is no `pg`: SQLite). */
export function recordStatements(pg: PgDirect | null | undefined): { names: string[]; stop: () => void } {
  const names: string[] = [];
  if (!pg) return { names, stop: () => {} };
  const original = pg.query;
  (pg as { query: typeof original }).query = ((sql: string, params?: unknown[], name?: string) => {
    if (name) names.push(name);
    return original.call(pg, sql, params, name);
  }) as typeof original;
  return { names, stop: () => ((pg as { query: typeof original }).query = original) };
}

/**
 * The next statement `pg` sends that `matches` accepts (by its name, "" for an unnamed one, or its text), held back: it goes out as usual once `release` is
 * called, so that the caller can look at what it would do first.
 */
export function captureStatement(
  pg: PgDirect,
  matches: (name: string, sql: string) => boolean,
): Promise<{ sql: string; params: unknown[]; release: () => void }> {
  const original = pg.query;
  return new Promise((resolve) => {
    (pg as { query: typeof original }).query = ((sql: string, params?: unknown[], name?: string) => {
      if (!matches(name ?? "", sql)) return original.call(pg, sql, params, name);
      (pg as { query: typeof original }).query = original;
      return new Promise<void>((release) => resolve({ sql, params: params ?? [], release })).then(() => original.call(pg, sql, params, name));
    }) as typeof original;
  });
}

let explained = 0;

/**
 * The plan of `sql` with `params`, run under EXPLAIN (ANALYZE) in a transaction that is rolled back (nothing it
 * writes stays). `generic`: planned as a pool's connection plans a named statement after its first runs (one plan for
 * any parameters); otherwise with these parameters, as an unnamed statement is. `types`: the parameters' types where
 * PostgreSQL cannot infer them from the statement. `settings`: planner settings for this plan only (`SET LOCAL`), e.g.
 * joins forced to nested loops, to see what a statement does under the worst join the planner could pick.
 */
export async function explainPlan(
  pg: PgDirect,
  sql: string,
  params: unknown[],
  options: { generic: boolean; types?: string[]; settings?: Record<string, string> },
): Promise<PlanNode> {
  const name = `explained_${++explained}`; // a prepared statement outlives the transaction: one name per use
  return pg
    .transaction(async (client) => {
      await client.query(`SET LOCAL plan_cache_mode = ${options.generic ? "force_generic_plan" : "force_custom_plan"}`);
      for (const [setting, value] of Object.entries(options.settings ?? {})) await client.query(`SET LOCAL ${setting} = ${value}`);
      await client.query(`PREPARE ${name}${options.types ? `(${options.types.slice(0, params.length).join(", ")})` : ""} AS ${sql}`);
      const element = (v: unknown) => (v === null ? "NULL" : `"${String(v).replace(/["\\]/g, "\\$&")}"`);
      const literal = (v: unknown) => (v === null ? "NULL" : client.escapeLiteral(Array.isArray(v) ? `{${v.map(element).join(",")}}` : String(v)));
      const [{ "QUERY PLAN": explained }] = (await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE ${name}(${params.map(literal).join(", ")})`)).rows;
      await client.query(`DEALLOCATE ${name}`);
      throw Object.assign(new Error("roll back"), { plan: explained[0].Plan as PlanNode });
    })
    .catch((e: { plan?: PlanNode }) => {
      if (!e.plan) throw e;
      return e.plan;
    });
}

/**
 * Runs `call`, which sends one statement named `name`, and returns that statement's plan — run under EXPLAIN
 * (ANALYZE) and rolled back before the statement itself goes out — with the call's result.
 */
export async function planOfCall<T>(pg: PgDirect, name: string, call: () => Promise<T>, options: { generic: boolean }): Promise<{ plan: PlanNode; result: T }> {
  const statement = captureStatement(pg, (sent) => sent === name);
  const pending = call();
  const { sql, params, release } = await statement;
  const plan = await explainPlan(pg, sql, params, options);
  release();
  return { plan, result: await pending };
}

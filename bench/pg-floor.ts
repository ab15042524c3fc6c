/**
 * `npm run bench:pg` part A's "floor" side (BENCH_PG_A_SIDES=…,floor): the least a PostgreSQL queue can write while
 * every item keeps what issue 22 §2 asks Stopline to keep — its row with its final state, an event per state change
 * in the same statement as the change (claimed, finished), a fencing token and a lease — run the way graphile-worker
 * batched runs (a local queue refilled, once empty, by one SKIP LOCKED fetch of slots + 1 items, the same slots, completions
 * collected while one completing statement is in flight and written by the next, one pool of 10 connections).
 *
 * No application logic at all: two statements, the fewest indexes that keep each rule servable (the queue, the leases
 * to recover, an item's events by task) — 7 B-tree entries per item against Stopline's 13. What it reaches is the
 * nearest measure we have of what "the history kept" costs on this server, next to graphile-worker batched, which keeps
 * none (it deletes a job once done): as lean as we could write it, not a proof that nothing leaner exists. Slower than
 * graphile-worker batched, it says §2's goal (Stopline ≥ 1.0×) sits above what keeping the history this way reaches.
 */
import pg from "pg";

const SCHEMA = `
CREATE TABLE floor_item (
  id bigserial PRIMARY KEY,
  task_id text NOT NULL,
  tool_name text NOT NULL,
  status text NOT NULL DEFAULT 'queued',
  lease_token uuid,
  lease_expires_at timestamptz,
  attempt int NOT NULL DEFAULT 0,
  row_version int NOT NULL DEFAULT 1,
  result jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  finished_at timestamptz
);
CREATE INDEX floor_item_queued ON floor_item (tool_name, id) WHERE status = 'queued';
CREATE INDEX floor_item_leased ON floor_item (lease_expires_at) WHERE lease_token IS NOT NULL;
CREATE TABLE floor_event (
  seq bigserial PRIMARY KEY,
  task_id text NOT NULL,
  item_id bigint NOT NULL,
  type text NOT NULL,
  from_state text,
  to_state text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX floor_event_task ON floor_event (task_id, seq);`;

/**
 * Claims up to $1 queued items: each a compare-and-set queued → running with a new fencing token, lease and event.
 * The scan starts past $2, the newest id this process claimed (it is the only claimer and claims in id order, so
 * every item below it is taken): the queue index's entries of claimed items, dead until a vacuum, are not walked
 * again by every claim — as Stopline's claim starts at its queue head (lib/ledger/sql/report-and-claim.ts).
 */
const claimSql = (withEvent: boolean) => `
WITH picked AS (
  SELECT id FROM floor_item WHERE tool_name = 'noop' AND status = 'queued' AND id > $2 ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED
), claimed AS (
  UPDATE floor_item i SET status = 'running', lease_token = gen_random_uuid(), lease_expires_at = now() + interval '30 seconds',
         attempt = i.attempt + 1, row_version = i.row_version + 1, started_at = now()
  FROM picked WHERE i.id = picked.id AND i.status = 'queued'
  RETURNING i.id, i.task_id, i.lease_token
)${
  withEvent
    ? `, events AS (
  INSERT INTO floor_event (task_id, item_id, type, from_state, to_state) SELECT task_id, id, 'work_item.claimed', 'queued', 'running' FROM claimed
)`
    : ""
}
SELECT id::text AS id, lease_token::text AS token FROM claimed`;

/** Completes a batch: each a compare-and-set running → completed under its fencing token, with its event. */
const completeSql = (withEvent: boolean) => `
WITH done AS (SELECT * FROM unnest($1::bigint[], $2::uuid[]) AS d(id, token)), finished AS (
  UPDATE floor_item i SET status = 'completed', lease_token = NULL, lease_expires_at = NULL, result = 'null'::jsonb,
         row_version = i.row_version + 1, finished_at = now()
  FROM done WHERE i.id = done.id AND i.lease_token = done.token AND i.status = 'running'
  RETURNING i.id, i.task_id
)${
  withEvent
    ? `, events AS (
  INSERT INTO floor_event (task_id, item_id, type, from_state, to_state) SELECT task_id, id, 'work_item.finished', 'running', 'completed' FROM finished
)`
    : ""
}
SELECT count(*)::int AS n FROM finished`;

/**
 * Events per item (BENCH_PG_FLOOR_EVENTS): 2, one per state change as Stopline's invariants require (the default);
 * 1, only the finished one; 0, none (the item's row alone) — how far below graphile-worker batched each reading of
 * "the history kept" sits.
 */
export const FLOOR_EVENTS = Number(process.env.BENCH_PG_FLOOR_EVENTS ?? 2);
if (![0, 1, 2].includes(FLOOR_EVENTS)) throw new Error(`BENCH_PG_FLOOR_EVENTS must be 0, 1 or 2, not ${process.env.BENCH_PG_FLOOR_EVENTS}`);
const CLAIM = claimSql(FLOOR_EVENTS === 2);
const COMPLETE = completeSql(FLOOR_EVENTS >= 1);

export async function seedFloor(connectionString: string, items: number, tasks: number): Promise<void> {
  const c = new pg.Client({ connectionString });
  await c.connect();
  await c.query(SCHEMA);
  await c.query(`INSERT INTO floor_item (task_id, tool_name) SELECT 'task-' || (g % $2::int), 'noop' FROM generate_series(1, $1::int) g ORDER BY g`, [
    items,
    tasks,
  ]);
  await c.end();
}

export interface FloorRun {
  /** Resolves at the last completion's commit (performance.now()). */
  allCommitted: Promise<number>;
  /** When the first item began (performance.now()), Infinity until then. */
  firstJob: () => number;
  stop: () => Promise<void>;
}

/** Starts the runners (resolves once they are ready); the clock of `measure` runs from here. */
export async function startFloor(connectionString: string, items: number, slots: number): Promise<FloorRun> {
  const pool = new pg.Pool({ connectionString, max: 10 });
  pool.on("error", () => {});
  await Promise.all(Array.from({ length: 10 }, () => pool.query("SELECT 1"))); // as graphile-worker's pool: connected before
  const localQueue: { id: string; token: string }[] = [];
  const waiting: ((job: { id: string; token: string } | null) => void)[] = [];
  let fetching = false;
  let head = "0"; // the newest id claimed
  let exhausted = false;
  let first = Infinity;
  let committed = 0;
  let stopped = false;
  let failure: Error | null = null;
  let resolveAll!: (at: number) => void;
  let rejectAll!: (e: Error) => void;
  const allCommitted = new Promise<number>((resolve, reject) => {
    resolveAll = resolve;
    rejectAll = reject;
  });
  const fail = (e: Error) => {
    failure ??= e;
    rejectAll(e);
  };

  const refill = () => {
    // As graphile-worker's local queue: a fetch of slots + 1 once the local queue is empty.
    if (fetching || exhausted || stopped || localQueue.length > 0) return;
    fetching = true;
    pool
      .query<{ id: string; token: string }>({ name: "floor_claim", text: CLAIM, values: [slots + 1, head] })
      .then(({ rows }) => {
        fetching = false;
        for (const row of rows) if (BigInt(row.id) > BigInt(head)) head = row.id;
        if (rows.length === 0) exhausted = true;
        localQueue.push(...rows);
        while (waiting.length && localQueue.length) waiting.shift()!(localQueue.shift()!);
        if (exhausted) while (waiting.length) waiting.shift()!(null);
        refill();
      })
      .catch(fail);
  };
  const take = () =>
    new Promise<{ id: string; token: string } | null>((resolve) => {
      const job = localQueue.shift();
      if (job) resolve(job);
      else if (exhausted) resolve(null);
      else waiting.push(resolve);
      refill();
    });

  let pending: { id: string; token: string }[] = [];
  let completing = false;
  const flush = () => {
    if (completing || pending.length === 0) return;
    const batch = pending;
    pending = [];
    completing = true;
    pool
      .query<{ n: number }>({ name: "floor_complete", text: COMPLETE, values: [batch.map((j) => j.id), batch.map((j) => j.token)] })
      .then(({ rows }) => {
        completing = false;
        if (rows[0].n !== batch.length) return fail(new Error(`the fence refused ${batch.length - rows[0].n} of ${batch.length} completions`));
        committed += batch.length;
        if (committed === items) resolveAll(performance.now());
        flush();
      })
      .catch(fail);
  };

  const slotLoops = Array.from({ length: slots }, async () => {
    for (;;) {
      const job = await take();
      if (!job || failure) return;
      if (first === Infinity) first = performance.now();
      await Promise.resolve(); // the no-op job
      pending.push(job);
      flush();
    }
  });
  return {
    allCommitted,
    firstJob: () => first,
    stop: async () => {
      stopped = true;
      exhausted = true;
      while (waiting.length) waiting.shift()!(null);
      await Promise.all(slotLoops);
      await pool.end();
    },
  };
}

import type { PgDirect } from "../../db/pg";
import { isStoppedItem, LEASED_ITEM_STATUSES, isLeasedItem, SideEffectOutcome, WorkItemStatus } from "../states";
import { fromStatesInto, checkSqlMove } from "../transitions";
import { NOT_QUARANTINED_SQL, notQuarantinedSql } from "../guards";
import type { WorkItem } from "../../db/generated/sqlite/client.ts";
import { completionFields, completionRefusal, settledOutcome, type CompleteInput } from "../completion-rules";
import { staleLeaseError } from "../lease";
import { LedgerEvent } from "../events";
import { announce, EVENT_COLUMNS, iso, json, NOW, own, WORK_ITEM_COLUMNS } from "./pg";
import { insertEvent, prepared, run, sqliteTime, toWorkItem, type Direct } from "./sqlite";

// Claims and reports: PostgreSQL's one statement for any number of each, and SQLite's claim and completion.

/**
 * Lease holders' reports (how their items ended) and claims of queued items, any number of each, in ONE
 * statement and one commit. A worker process's slots hand their writes to one queue (report-and-claim.ts), which
 * sends what accumulated while the previous statement was in flight: under load a statement carries several
 * reports and the claims of the slots they freed, so the statement's fixed cost (executor start-up, the commit and
 * its WAL flush, two socket round trips) is paid once for all of them. Every change is still a guarded
 * compare-and-set with its event in the same transaction (invariant 9); the changes are independent of each
 * other (a claim never touches a reported row: it is not queued).
 *
 * Parameters: 1–13 the reports as parallel arrays (id, lease token, allowed from-states joined by ',', is a stop
 * outcome, outcome, result, partial result, partial complete, error, actor, the side effect's outcome, external
 * record id, external version); 14 worker id, 15 lease ms, 16 tools (null: any), 17 actor; how many to claim is in the text (a LIMIT parameter would make PostgreSQL plan every execution anew: its generic plan guesses 10% of the queue).
 *
 * Claims: the candidates come from an ordered scan of each claimed tool's queue (the partial index
 * WorkItem_queued_idx on toolName, createdAt, id: a claim reads no other tool's queued items), each one's task
 * checked per row by a scalar subquery — a shape the planner cannot turn around, so a claim costs the same with or
 * without table statistics — and locked FOR UPDATE SKIP LOCKED (claimers never wait on each other).
 * Their tasks are then locked FOR KEY SHARE, in task id order, and checked again on the locked rows: the boundary
 * locks the task FOR UPDATE, so a claim either commits before the boundary (the engine then sees the item running and
 * stops it) or waits for it and re-checks the task on its newest version — after the boundary's commit nothing is
 * claimed (invariant 2). Each claimed item gets its own fencing token (a random UUID).
 */

/**
 * The claim's candidates: the `count` oldest claimable queued items of the claimed tools, locked. One ordered,
 * locked scan per tool (`tools` of them, the names in $16), the oldest `count` of their union taken: each scan is
 * its tool's own part of the queue index, so queued items of tools the claimer does not serve cost it nothing.
 * Each scan locks up to `count` rows; the ones the union leaves out stay queued and are unlocked at the commit —
 * a concurrent claim skips them meanwhile (SKIP LOCKED), so with several tools under load a claimer may take a
 * younger item than the oldest (never a wrong one; a slot that found nothing looks again on the next poll).
 * Without tools (a claim of any tool, null in $16) one scan of the whole queue, sorted: slower on a long queue.
 */
function claimCandidates(count: number, tools: number | null, fromHead: boolean): string {
  // `tool`: the scanned tool's name (SQL), null for the whole queue.
  const scan = (tool: string | null) => `SELECT w."id", w."taskId", w."attempt", w."preparedIntentVersion", w."createdAt", w."status"
    FROM "WorkItem" w
    WHERE w."status" = 'queued' AND ${tool ? `w."toolName" = ${tool}` : `$16::text[] IS NULL`}${fromHead ? ` AND (w."createdAt", w."id") >= ((SELECT $18::timestamp), (SELECT $19::text))` : ""}
      AND ${tool ? notQuarantinedSql(tool) : NOT_QUARANTINED_SQL}
      AND (SELECT t."stage" = 'active' AND t."cancelRequestedAt" IS NULL AND t."intentVersion" = w."preparedIntentVersion" FROM "Task" t WHERE t."id" = w."taskId")
    ORDER BY w."createdAt", w."id"
    LIMIT ${count}
    FOR UPDATE OF w SKIP LOCKED`;
  if (tools === null) return scan(null);
  // Each tool's name (and the head's position, in scan) as a subquery, evaluated once at run time: a planner that saw
  // the values compared their own statistics (a tool missing from them, a position after the history's last, read as
  // nearly empty) with the generic plan's average, found the generic plan dearer, and planned every execution anew
  // (~1.2 ms each, with a long history: issue 22 §3). Unseen, every plan costs the same and connections keep the generic one.
  const tool = (i: number) => `(SELECT ($16::text[])[${i + 1}])`;
  if (tools === 1) return scan(tool(0));
  const each = Array.from({ length: tools }, (_, i) => `SELECT * FROM (${scan(tool(i))}) s${i + 1}`);
  return `SELECT * FROM (${each.join("\n    UNION ALL ")}) c ORDER BY c."createdAt", c."id" LIMIT ${count}`;
}

/** An aggregate row's work item columns: none. */
const NO_ITEM = WORK_ITEM_COLUMNS.map(() => "NULL").join(", ");

const reportsAndClaims = (count: number, tools: number | null, fromHead: boolean, whole: boolean) => `
WITH ${NOW},
report AS (
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::boolean[], $5::text[], $6::text[], $7::text[], $8::boolean[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[])
    AS r("id", "token", "fromStates", "stopOutcome", "outcome", "result", "partialResult", "partialComplete", "error", "actor", "effectOutcome", "externalRecordId", "externalVersion")
),
-- The report applies when the token is current, the transition is in the table and a stop outcome has a stop
-- request behind it (the same rules as completionRefusal). No row lock here (one WAL record less per item): the
-- update re-checks the token and the status it read on the row's newest version, so a concurrent change (the
-- engine moving it to cancelling) makes it apply to nothing and the caller takes the slow path. The stop-outcome
-- condition only ever becomes true (a boundary or a stop request is never withdrawn), so reading it unlocked
-- cannot let a report through that a lock would refuse.
-- Each reported item is read by its id (a lateral lookup; LIMIT 1 keeps the planner from folding it into a join): as a
-- join on id and token, the planner could read every leased item through WorkItem_leased_idx (statistics gathered
-- before a burst call it small) and hash them — 1,500 leased items, 1,500 rows read for one report.
-- MATERIALIZED: read once, by id, before the update (inlined into it, the planner may fold the lateral into a join).
item AS MATERIALIZED (
  SELECT r.*, w."status" AS "from"
  FROM report r CROSS JOIN LATERAL (SELECT * FROM "WorkItem" w WHERE w."id" = r."id" LIMIT 1) w JOIN "Task" t ON t."id" = w."taskId"
  WHERE w."leaseToken" = r."token" AND w."status" = ANY(string_to_array(r."fromStates", ','))
    AND (NOT r."stopOutcome" OR t."cancelRequestedAt" IS NOT NULL OR w."preparedIntentVersion" <> t."intentVersion" OR w."status" = 'cancelling' OR w."stopRequestedAt" IS NOT NULL)
),
done AS (
  UPDATE "WorkItem" w SET "status" = i."outcome", "result" = i."result"::jsonb, "partialResult" = COALESCE(i."partialResult"::jsonb, w."partialResult"),
    "partialComplete" = COALESCE(i."partialComplete", w."partialComplete"), "error" = i."error", "finishedAt" = now.t,
    "leaseToken" = NULL, "leaseOwner" = NULL, "leaseExpiresAt" = NULL, "rowVersion" = w."rowVersion" + 1, "updatedAt" = now.t
  FROM item i, now WHERE w."id" = i."id" AND w."leaseToken" = i."token" AND w."status" = i."from"
  -- What the events below need of the report, carried here: joined back to \`item\` (two CTEs the planner guesses at one
  -- row each) they were nested loops, quadratic in the batch — 18 ms of a 64-report statement (bench:pg part D).
  RETURNING w.*, i."from" AS "_from", i."actor" AS "_actor", i."effectOutcome" AS "_effectOutcome",
    i."externalRecordId" AS "_externalRecordId", i."externalVersion" AS "_externalVersion"
),
finished AS (
  INSERT INTO "LedgerEvent" ${EVENT_COLUMNS}
  SELECT d."taskId", d."id", 'workItem', d."id", d."_actor", '${LedgerEvent.workItemFinished}', d."_from", d."status", d."error", NULL, now.t
  FROM done d, now
  RETURNING "seq", "workItemId"
),
-- The item's own recorded submission follows its report: completed → committed, otherwise not committed.
effect AS (
  UPDATE "SideEffect" s SET "outcome" = d."_effectOutcome",
    "externalRecordId" = CASE WHEN d."_effectOutcome" = 'committed' THEN COALESCE(d."_externalRecordId", s."externalRecordId") ELSE s."externalRecordId" END,
    "externalVersion" = CASE WHEN d."_effectOutcome" = 'committed' THEN COALESCE(d."_externalVersion", s."externalVersion") ELSE s."externalVersion" END,
    "rowVersion" = s."rowVersion" + 1, "updatedAt" = now.t
  FROM done d, now
  WHERE d."operationId" IS NOT NULL AND s."operationId" = d."operationId" AND s."outcome" = 'unknown'
  RETURNING s."id", s."taskId", d."id" AS "workItemId", d."status", d."_actor" AS "actor", d."_effectOutcome" AS "effectOutcome"
),
settled AS (
  INSERT INTO "LedgerEvent" ${EVENT_COLUMNS}
  SELECT e."taskId", e."workItemId", 'sideEffect', e."id", e."actor", '${LedgerEvent.sideEffectSettled}', 'unknown', e."effectOutcome", 'work item ' || e."status", NULL, now.t
  FROM effect e, now
  RETURNING "seq", "workItemId"
),
candidate AS (
  ${claimCandidates(count, tools, fromHead)}
),
-- Each candidate's task locked FOR KEY SHARE and checked on the locked row (its newest version, should a boundary have
-- committed meanwhile), read by its id in a lateral lookup, the candidates in task id order: the order the boundary
-- locks tasks FOR UPDATE in, which conflicts with KEY SHARE (two statements locking shared tasks in different orders
-- could deadlock). The candidate's columns ride along: a join of \`candidate\` with a CTE of its tasks was two CTEs
-- the planner guesses at one row each.
ready AS (
  SELECT c."id", c."status"
  FROM (SELECT * FROM candidate ORDER BY "taskId", "id") c
  CROSS JOIN LATERAL (
    SELECT 1 FROM "Task" t
    WHERE t."id" = c."taskId" AND t."stage" = 'active' AND t."cancelRequestedAt" IS NULL AND t."intentVersion" = c."preparedIntentVersion"
    LIMIT 1 FOR KEY SHARE OF t
  ) k
),
claimed AS (
  UPDATE "WorkItem" w SET "status" = 'running', "leaseOwner" = $14, "leaseToken" = gen_random_uuid()::text,
    "leaseExpiresAt" = now.t + make_interval(secs => $15::double precision / 1000), "heartbeatAt" = now.t,
    "startedAt" = COALESCE(w."startedAt", now.t), "attempt" = w."attempt" + 1, "rowVersion" = w."rowVersion" + 1, "updatedAt" = now.t
  FROM ready c, now
  -- The status compared with the one the candidate read (not the literal 'queued': that would let the planner read
  -- the update's rows through the queue's partial index, every queued item, instead of by id).
  WHERE w."id" = c."id" AND w."status" = c."status"
  RETURNING w.*, NULL::text AS "_from"
),
claim_event AS (
  INSERT INTO "LedgerEvent" ${EVENT_COLUMNS}
  SELECT c."taskId", c."id", 'workItem', c."id", $17, '${LedgerEvent.workItemClaimed}', 'queued', 'running', NULL,
    jsonb_build_object('attempt', c."attempt", 'leaseExpiresAt', ${iso(`c."leaseExpiresAt"`)}), now.t
  FROM claimed c, now
  RETURNING "seq", "workItemId"
)
-- The items' rows, then each kind of event in one row of two arrays (sequence numbers, item ids), paired by the caller:
-- joined here (CTEs the planner guesses at one row each) they were nested loops, quadratic in the batch.
SELECT 'claimed' AS "_kind", NULL::int[] AS "_seqs", NULL::text[] AS "_ids", ${WORK_ITEM_COLUMNS.map((c) => `c."${c}"`).join(", ")}
FROM claimed c
UNION ALL
-- A report's row is the whole item only when the caller wants it back (a worker's own report over HTTP); a pool's
-- slots need only its id and outcome (the rest is the largest part of the answer).
SELECT 'done', NULL, NULL, ${WORK_ITEM_COLUMNS.map((c) => (whole || c === "id" || c === "taskId" || c === "status" ? `d."${c}"` : "NULL")).join(", ")}
FROM done d
UNION ALL
SELECT 'claimed_events', array_agg(e."seq"), array_agg(e."workItemId"), ${NO_ITEM} FROM claim_event e
UNION ALL
SELECT 'finished_events', array_agg(f."seq"), array_agg(f."workItemId"), ${NO_ITEM} FROM finished f
UNION ALL
SELECT 'settled_events', array_agg(s."seq"), array_agg(s."workItemId"), ${NO_ITEM} FROM settled s
UNION ALL
-- Always one row with how many candidates there were: fewer claimed than that means a candidate lost its task's
-- re-check (a boundary committed meanwhile), which is worth another look at once.
SELECT 'candidates', ARRAY[(SELECT count(*) FROM candidate)::int], NULL, ${NO_ITEM}`;

type ClaimParams = { workerId: string; toolNames?: string[]; leaseMs: number };
/** Where the queue's live head was last seen: a claim may start its scan there (see QueueHead in report-and-claim.ts). */
export interface QueuePosition {
  createdAt: Date;
  id: string;
}
type CompletionFields = { result: unknown; partialResult: unknown; partialComplete: boolean | undefined; error: string | null };
/** A lease holder's report as the statement takes it: what it asked for and the fields the completion writes. */
export interface PgReport {
  input: CompleteInput;
  fields: CompletionFields;
}

const effectOutcomeOf = (outcome: string) => (outcome === WorkItemStatus.completed ? SideEffectOutcome.committed : SideEffectOutcome.notCommitted);

function reportParams(reports: PgReport[]): unknown[] {
  const columns: unknown[][] = Array.from({ length: 13 }, () => []);
  for (const { input, fields } of reports) {
    const from = fromStatesInto("workItem", input.outcome).filter((s) => (LEASED_ITEM_STATUSES as string[]).includes(s));
    const row = [
      input.workItemId,
      input.leaseToken,
      from.join(","),
      isStoppedItem(input.outcome),
      input.outcome,
      json(fields.result),
      json(fields.partialResult),
      fields.partialComplete ?? null,
      fields.error,
      input.actor,
      effectOutcomeOf(input.outcome),
      input.externalRecordId ?? null,
      input.externalVersion ?? null,
    ];
    for (let i = 0; i < row.length; i++) columns[i].push(row[i]);
  }
  return columns;
}

/** What a pool's slot learns of its applied report. */
export type ReportedItem = Pick<WorkItem, "id" | "taskId" | "status">;

export interface ReportsAndClaims {
  /** The reports that applied, by work item id (a report missing here was refused: the caller explains why): the
   * whole rows with `wholeRows`, else only their id, task and status. */
  done: Map<string, ReportedItem>;
  /** The items claimed, oldest first. */
  claimed: WorkItem[];
  /** How many queued candidates the claim found (more than it claimed: one lost its task's re-check). */
  candidates: number;
}

/** Reports and claims in one statement (see REPORTS_AND_CLAIMS); the events are announced after the commit. */
export async function reportAndClaimOnPg(
  pg: PgDirect,
  reports: PgReport[],
  claim: (ClaimParams & { count: number; from?: QueuePosition | null }) | null,
  options: { /** The reported items' whole rows (else only id, task and status). */ wholeRows?: boolean } = {},
): Promise<ReportsAndClaims> {
  const toolNames = claim?.toolNames ? [...new Set(claim.toolNames)] : null;
  // No tool named: nothing to claim (an empty list is not "any tool").
  const count = toolNames?.length === 0 ? 0 : (claim?.count ?? 0);
  if (count > 0) checkSqlMove("claim");
  const from = count > 0 ? (claim?.from ?? null) : null;
  // The claim's text depends on how many tools it scans; without a claim, the cheapest text (one scan, LIMIT 0).
  const tools = count > 0 && toolNames ? toolNames.length : null;
  const params = [...reportParams(reports), claim?.workerId ?? null, claim?.leaseMs ?? 0, tools ? toolNames : null, claim ? `worker:${claim.workerId}` : null];
  if (from) params.push(from.createdAt.toISOString().replace("T", " ").replace("Z", ""), from.id);
  const whole = options.wholeRows ?? false;
  const rows = await pg.query(
    reportsAndClaims(count, tools, !!from, whole),
    params,
    `stopline_reports_and_claims_${count}_${tools ?? "any"}${from ? "_from" : ""}${whole ? "_whole" : ""}`,
  );
  const out: ReportsAndClaims = { done: new Map(), claimed: [], candidates: 0 };
  const events: Parameters<typeof announce>[0] = [];
  const outcomes = new Map(reports.map((r) => [r.input.workItemId, r.input.outcome]));
  // Each event's sequence number by its item (an aggregate row per kind: see the statement's last SELECT); an item's
  // first settled side effect is the one its report names.
  const seqOf = { claimed_events: new Map<string, number>(), finished_events: new Map<string, number>(), settled_events: new Map<string, number>() };
  for (const row of rows) {
    const kind = row._kind as string;
    if (kind === "candidates") out.candidates = (row._seqs as number[])[0];
    if (kind !== "claimed_events" && kind !== "finished_events" && kind !== "settled_events") continue;
    const seqs = seqOf[kind];
    const ids = (row._ids as string[] | null) ?? [];
    for (const [i, seq] of ((row._seqs as number[] | null) ?? []).entries()) if (!seqs.has(ids[i]) || seq < seqs.get(ids[i])!) seqs.set(ids[i], seq);
  }
  for (const row of rows) {
    if (row._kind !== "claimed" && row._kind !== "done") continue;
    const item = own<WorkItem>(row);
    if (row._kind === "claimed") {
      out.claimed.push(item);
      events.push({
        seq: seqOf.claimed_events.get(item.id)!,
        taskId: item.taskId,
        workItemId: item.id,
        type: LedgerEvent.workItemClaimed,
        toState: WorkItemStatus.running,
      });
      continue;
    }
    out.done.set(item.id, item);
    events.push({
      seq: seqOf.finished_events.get(item.id)!,
      taskId: item.taskId,
      workItemId: item.id,
      type: LedgerEvent.workItemFinished,
      toState: item.status,
    });
    const effectSeq = seqOf.settled_events.get(item.id);
    if (effectSeq !== undefined) {
      events.push({
        seq: effectSeq,
        taskId: item.taskId,
        workItemId: item.id,
        type: LedgerEvent.sideEffectSettled,
        toState: effectOutcomeOf(outcomes.get(item.id)!),
      });
    }
  }
  out.claimed.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1));
  announce(events.sort((a, b) => a.seq - b.seq));
  return out;
}

/** Claims the oldest claimable queued item (looking again at once when a candidate lost its task's re-check). */
export async function claimOnPg(pg: PgDirect, input: ClaimParams): Promise<WorkItem | null> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const { claimed, candidates } = await reportAndClaimOnPg(pg, [], { ...input, count: 1 });
    if (claimed.length || candidates === 0) return claimed[0] ?? null;
  }
  return null;
}

/**
 * The lease holder's report, as one guarded statement: it applies only when the token is current, the
 * transition is in the table and a stop outcome has a stop request behind it (the same rules as
 * completionRefusal). Null when it did not apply: the caller then works out why (and records a stale token).
 */
export async function completeOnPg(pg: PgDirect, input: CompleteInput, fields: CompletionFields): Promise<WorkItem | null> {
  const { done } = await reportAndClaimOnPg(pg, [{ input, fields }], null, { wholeRows: true });
  return (done.get(input.workItemId) as WorkItem | undefined) ?? null;
}

export function claimOnSqlite(direct: Direct, input: { workerId: string; toolNames?: string[]; leaseMs: number; leaseToken: string }) {
  checkSqlMove("claim");
  return run<WorkItem | null>(direct, (db, now, committed) => {
    const tools = input.toolNames ? [...new Set(input.toolNames)] : null;
    if (tools?.length === 0) return null; // no tool named: nothing to claim
    // The claim's guard (invariant 2): queued, task active with no boundary, prepared under the current intent.
    // The candidate comes from an ordered scan of each tool's part of the partial index of queued items
    // (WorkItem_queued_idx on toolName, createdAt, id: hence the literal 'queued'), its task checked per row — a
    // plan SQLite keeps without table statistics — and the oldest of the tools' heads is taken. Without tools,
    // one scan of the whole queue, sorted.
    const scan = (toolCondition: string) => `SELECT w."id", w."taskId", w."attempt", w."createdAt" FROM "WorkItem" w
         WHERE w."status" = 'queued' ${toolCondition}
         AND ${NOT_QUARANTINED_SQL}
         AND (SELECT t."stage" = 'active' AND t."cancelRequestedAt" IS NULL AND t."intentVersion" = w."preparedIntentVersion" FROM "Task" t WHERE t."id" = w."taskId")
         ORDER BY w."createdAt" ASC, w."id" ASC LIMIT 1`;
    const sql = tools
      ? `SELECT * FROM (${tools.map(() => `SELECT * FROM (${scan(`AND w."toolName" = ?`)})`).join(" UNION ALL ")}) ORDER BY "createdAt" ASC, "id" ASC LIMIT 1`
      : scan("");
    const candidate = prepared(db, sql).get(...(tools ?? [])) as { id: string; taskId: string; attempt: number } | undefined;
    if (!candidate) return null;
    const expires = new Date(now.getTime() + input.leaseMs);
    const row = prepared(
      db,
      `UPDATE "WorkItem" SET "status" = ?, "leaseOwner" = ?, "leaseToken" = ?, "leaseExpiresAt" = ?, "heartbeatAt" = ?,
           "startedAt" = COALESCE("startedAt", ?), "attempt" = "attempt" + 1, "rowVersion" = "rowVersion" + 1, "updatedAt" = ?
         WHERE "id" = ? AND "status" = ? RETURNING *`,
    ).get(
      WorkItemStatus.running,
      input.workerId,
      input.leaseToken,
      sqliteTime(expires),
      sqliteTime(now),
      sqliteTime(now),
      sqliteTime(now),
      candidate.id,
      WorkItemStatus.queued,
    ) as Record<string, unknown> | undefined;
    if (!row) return null; // cannot happen under the write lock; kept as the compare-and-set's honest answer
    insertEvent(
      db,
      {
        taskId: candidate.taskId,
        workItemId: candidate.id,
        entityType: "workItem",
        entityId: candidate.id,
        actor: `worker:${input.workerId}`,
        type: LedgerEvent.workItemClaimed,
        fromState: WorkItemStatus.queued,
        toState: WorkItemStatus.running,
        data: { attempt: candidate.attempt + 1, leaseExpiresAt: expires.toISOString() },
      },
      now,
      committed,
    );
    return toWorkItem(row);
  });
}

export function completeOnSqlite(direct: Direct, input: CompleteInput) {
  return run<WorkItem>(direct, (db, now, committed) => {
    const item = prepared(
      db,
      `SELECT w."id", w."taskId", w."status", w."leaseToken", w."preparedIntentVersion", w."operationId", w."stopRequestedAt",
                t."cancelRequestedAt" AS "taskCancelRequestedAt", t."intentVersion" AS "taskIntentVersion"
         FROM "WorkItem" w JOIN "Task" t ON t."id" = w."taskId" WHERE w."id" = ?`,
    ).get(input.workItemId) as
      | {
          id: string;
          taskId: string;
          status: string;
          leaseToken: string | null;
          preparedIntentVersion: number;
          operationId: string | null;
          stopRequestedAt: string | null;
          taskCancelRequestedAt: string | null;
          taskIntentVersion: number;
        }
      | undefined;
    if (!item) throw staleLeaseError.notFound(input.workItemId);
    if (item.leaseToken !== input.leaseToken || !isLeasedItem(item.status)) {
      insertEvent(db, staleLeaseError.event(item, input.leaseToken, "complete", input.actor, { outcome: input.outcome }), now, committed);
      return { rejected: staleLeaseError.error(item) };
    }
    const task = { cancelRequestedAt: item.taskCancelRequestedAt ? new Date(item.taskCancelRequestedAt) : null, intentVersion: item.taskIntentVersion };
    const refusal = completionRefusal({ ...item, stopRequestedAt: item.stopRequestedAt ? new Date(item.stopRequestedAt) : null }, task, input);
    if (refusal) throw refusal;
    const f = completionFields(input, now);
    const row = prepared(
      db,
      `UPDATE "WorkItem" SET "status" = ?, "result" = ?, "partialResult" = COALESCE(?, "partialResult"), "partialComplete" = COALESCE(?, "partialComplete"), "error" = ?, "finishedAt" = ?,
           "leaseToken" = NULL, "leaseOwner" = NULL, "leaseExpiresAt" = NULL, "rowVersion" = "rowVersion" + 1, "updatedAt" = ?
         WHERE "id" = ? AND "status" = ? AND "leaseToken" = ? RETURNING *`,
    ).get(
      input.outcome,
      json(f.result),
      json(f.partialResult),
      f.partialComplete == null ? null : f.partialComplete ? 1 : 0,
      f.error,
      sqliteTime(now),
      sqliteTime(now),
      item.id,
      item.status,
      input.leaseToken,
    ) as Record<string, unknown> | undefined;
    if (!row) throw staleLeaseError.conflict(item);
    insertEvent(
      db,
      {
        taskId: item.taskId,
        workItemId: item.id,
        entityType: "workItem",
        entityId: item.id,
        actor: input.actor,
        type: LedgerEvent.workItemFinished,
        fromState: item.status,
        toState: input.outcome,
        reason: input.error ?? null,
      },
      now,
      committed,
    );

    if (item.operationId) {
      const to = settledOutcome(input.outcome);
      const effect = prepared(
        db,
        `UPDATE "SideEffect" SET "outcome" = ?, "externalRecordId" = COALESCE(?, "externalRecordId"), "externalVersion" = COALESCE(?, "externalVersion"),
             "rowVersion" = "rowVersion" + 1, "updatedAt" = ?
           WHERE "operationId" = ? AND "outcome" = ? RETURNING "id"`,
      ).get(
        to,
        to === SideEffectOutcome.committed ? (input.externalRecordId ?? null) : null,
        to === SideEffectOutcome.committed ? (input.externalVersion ?? null) : null,
        sqliteTime(now),
        item.operationId,
        SideEffectOutcome.unknown,
      ) as { id: string } | undefined;
      if (effect) {
        insertEvent(
          db,
          {
            taskId: item.taskId,
            workItemId: item.id,
            entityType: "sideEffect",
            entityId: effect.id,
            actor: input.actor,
            type: LedgerEvent.sideEffectSettled,
            fromState: SideEffectOutcome.unknown,
            toState: to,
            reason: `work item ${input.outcome}`,
          },
          now,
          committed,
        );
      }
    }
    return toWorkItem(row);
  });
}

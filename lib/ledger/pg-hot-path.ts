import { randomUUID } from "node:crypto";
import type { PgDirect } from "../db/pg";
import { Prisma, type Task, type WorkItem } from "../db/generated/sqlite/client.ts";
import { publishCommitted, type CommittedEvent } from "../events/bus";
import type { CompleteInput } from "./completion-rules";
import { isStoppedItem, LEASED_ITEM_STATUSES, ResourceState, SideEffectOutcome, StopScope, TaskStage, WorkItemStatus } from "./states";
import { checkSqlMove, fromStatesInto } from "./transitions";
import { NOT_QUARANTINED_SQL } from "./guards";
import { LedgerEvent, type TaskEventType } from "./events";
import type { EventInput } from "./write";

/**
 * The ledger's hot path on PostgreSQL: claims and reports (any number of them together), heartbeat, checkpoint,
 * the boundary, the removal of queued children and task creation — each ONE statement on the app's pool (`pg` directly, autocommit): the
 * state compare-and-set, its event and the database clock in one CTE, so the change and its event commit
 * together (invariant 9) without a BEGIN/COMMIT round trip. Same rows and events as the Prisma path; the
 * decisions that are not a plain guard (why a call is refused) are the shared pure functions, taken on a
 * slow path only when the guarded statement changed nothing.
 *
 * Locking, without a global lock:
 * - a claim locks its item `FOR UPDATE SKIP LOCKED` (workers never wait on each other) and its task
 *   `FOR KEY SHARE`; the boundary locks the task `FOR UPDATE`, which conflicts with that share lock. So a claim
 *   either commits before the boundary (the engine then sees the item running and stops it) or waits for it
 *   and re-checks the task (READ COMMITTED re-evaluates a locked row's conditions on its newest version): after
 *   the boundary's commit nothing is claimed (invariant 2). The checkpoint locks the same way.
 * - every other write is guarded by the row's state (and lease token), so a lost race changes nothing.
 */

type Row = Record<string, unknown>;

// The database's clock, read once per statement (a volatile CTE is evaluated once), in UTC like Prisma's DateTime.
const NOW = `now AS MATERIALIZED (SELECT timezone('UTC', clock_timestamp()) AS t)`;
const EVENT_COLUMNS = `("taskId","workItemId","entityType","entityId","actor","type","fromState","toState","reason","data","createdAt")`;
const iso = (column: string) => `to_char(${column}, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));

/** The events a statement committed, announced in-process after the commit (types from the catalogue). */
function announce(rows: { seq: number; taskId: string | null; workItemId: string | null; type: TaskEventType; toState: string | null }[]) {
  const committed: CommittedEvent[] = rows.map((r) => ({ seq: r.seq, taskId: r.taskId, workItemId: r.workItemId, type: r.type, toState: r.toState }));
  publishCommitted(committed);
}

/** Strips the statement's bookkeeping columns (`_…`) from a returned row. */
function own<T>(row: Row): T {
  const out: Row = {};
  for (const [k, v] of Object.entries(row)) if (!k.startsWith("_")) out[k] = v;
  return out as T;
}

// ---- heartbeat --------------------------------------------------------------------------------------------

const HEARTBEAT = `
WITH ${NOW},
beat AS (
  UPDATE "WorkItem" w SET "heartbeatAt" = now.t, "leaseExpiresAt" = now.t + make_interval(secs => $3::double precision / 1000)
  FROM now WHERE w."id" = $1 AND w."leaseToken" = $2 AND w."status" = ANY($4::text[])
  RETURNING w."status", w."taskId", w."preparedIntentVersion", w."leaseExpiresAt", w."stopRequestedAt"
)
SELECT b."status", b."preparedIntentVersion", b."leaseExpiresAt", b."stopRequestedAt", t."cancelRequestedAt", t."intentVersion"
FROM beat b JOIN "Task" t ON t."id" = b."taskId"`;

/** Extends the current holder's lease; null when the token is not current (the caller takes the slow path). */
export async function heartbeatOnPg(pg: PgDirect, input: { workItemId: string; leaseToken: string; leaseMs: number }) {
  const [row] = await pg.query<{
    status: string;
    preparedIntentVersion: number;
    leaseExpiresAt: Date;
    stopRequestedAt: Date | null;
    cancelRequestedAt: Date | null;
    intentVersion: number;
  }>(HEARTBEAT, [input.workItemId, input.leaseToken, input.leaseMs, LEASED_ITEM_STATUSES], "stopline_heartbeat");
  return row ?? null;
}

// ---- checkpoint -------------------------------------------------------------------------------------------

const CHECKPOINT = `
WITH ${NOW},
item AS (
  SELECT w."id", w."taskId", w."preparedIntentVersion", w."proposalVersion",
    t."intentVersion" AS "taskIntentVersion", t."proposalVersion" AS "taskProposalVersion"
  FROM "WorkItem" w JOIN "Task" t ON t."id" = w."taskId"
  WHERE w."id" = $1 AND w."leaseToken" = $2 AND w."status" = 'running'
    AND ($3::int IS NULL OR w."preparedIntentVersion" = $3::int)
    AND ($4::int IS NULL OR w."proposalVersion" IS NOT DISTINCT FROM $4::int)
    AND t."cancelRequestedAt" IS NULL AND t."stage" = 'active' AND t."intentVersion" = w."preparedIntentVersion"
    AND (w."proposalVersion" IS NULL OR w."proposalVersion" = t."proposalVersion")
    AND w."stopRequestedAt" IS NULL -- a Stop of this child (or an ancestor): no commitment (issue 13)
  FOR NO KEY UPDATE OF w
  FOR KEY SHARE OF t
),
passed AS (
  UPDATE "WorkItem" w SET "checkpointPassedAt" = now.t, "updatedAt" = now.t FROM item i, now WHERE w."id" = i."id" RETURNING w."id"
),
event AS (
  INSERT INTO "LedgerEvent" ${EVENT_COLUMNS}
  SELECT i."taskId", i."id", 'checkpoint', i."id", $5, '${LedgerEvent.checkpointPassed}', NULL, NULL, NULL,
    jsonb_build_object('preparedIntentVersion', i."preparedIntentVersion", 'taskIntentVersion', i."taskIntentVersion",
      'confirmedProposalVersion', i."proposalVersion", 'taskProposalVersion', i."taskProposalVersion"), now.t
  FROM item i JOIN passed p ON p."id" = i."id", now
  RETURNING "seq"
)
SELECT i.*, (SELECT "seq" FROM event) AS "_seq" FROM item i`;

/**
 * The checkpoint before a commitment: passes (records `checkpointPassedAt` and `checkpoint.passed`) only while
 * the task has no boundary and neither intent nor confirmed proposal moved. Null when it did not pass — the
 * caller then works out and records why (checkpoint-work-item.ts).
 */
export async function checkpointOnPg(
  pg: PgDirect,
  input: { workItemId: string; leaseToken: string; intentVersion?: number; proposalVersion?: number | null; actor: string },
) {
  const [row] = await pg.query<{ taskId: string; taskIntentVersion: number; taskProposalVersion: number; _seq: number }>(
    CHECKPOINT,
    [input.workItemId, input.leaseToken, input.intentVersion ?? null, input.proposalVersion ?? null, input.actor],
    "stopline_checkpoint",
  );
  if (!row) return null;
  announce([{ seq: row._seq, taskId: row.taskId, workItemId: input.workItemId, type: LedgerEvent.checkpointPassed, toState: null }]);
  return { passed: true as const, intentVersion: row.taskIntentVersion, proposalVersion: row.taskProposalVersion };
}

// ---- reports and claims -----------------------------------------------------------------------------------

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
 * Claims: the candidates come from an ordered scan of queued items (the partial index WorkItem_queued_idx), each
 * one's task checked per row by a scalar subquery — a shape the planner cannot turn around, so a claim costs the
 * same with or without table statistics — and locked FOR UPDATE SKIP LOCKED (claimers never wait on each other).
 * Their tasks are then locked FOR KEY SHARE and checked again on the locked rows: the boundary locks the task FOR
 * UPDATE, so a claim either commits before the boundary (the engine then sees the item running and stops it) or
 * waits for it and re-checks the task on its newest version — after the boundary's commit nothing is claimed
 * (invariant 2). Each claimed item gets its own fencing token (a random UUID).
 */
/** Every column of a work item, from the one model source (prisma/models.prisma). */
const WORK_ITEM_COLUMNS = Object.values(Prisma.WorkItemScalarFieldEnum);

const reportsAndClaims = (count: number, fromHead: boolean, whole: boolean) => `
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
item AS (
  SELECT r.*, w."status" AS "from" FROM report r JOIN "WorkItem" w ON w."id" = r."id" JOIN "Task" t ON t."id" = w."taskId"
  WHERE w."leaseToken" = r."token" AND w."status" = ANY(string_to_array(r."fromStates", ','))
    AND (NOT r."stopOutcome" OR t."cancelRequestedAt" IS NOT NULL OR w."preparedIntentVersion" <> t."intentVersion" OR w."status" = 'cancelling' OR w."stopRequestedAt" IS NOT NULL)
),
done AS (
  UPDATE "WorkItem" w SET "status" = i."outcome", "result" = i."result"::jsonb, "partialResult" = COALESCE(i."partialResult"::jsonb, w."partialResult"),
    "partialComplete" = COALESCE(i."partialComplete", w."partialComplete"), "error" = i."error", "finishedAt" = now.t,
    "leaseToken" = NULL, "leaseOwner" = NULL, "leaseExpiresAt" = NULL, "rowVersion" = w."rowVersion" + 1, "updatedAt" = now.t
  FROM item i, now WHERE w."id" = i."id" AND w."leaseToken" = i."token" AND w."status" = i."from"
  RETURNING w.*, i."from" AS "_from"
),
finished AS (
  INSERT INTO "LedgerEvent" ${EVENT_COLUMNS}
  SELECT d."taskId", d."id", 'workItem', d."id", i."actor", '${LedgerEvent.workItemFinished}', d."_from", d."status", i."error", NULL, now.t
  FROM done d JOIN item i ON i."id" = d."id", now
  RETURNING "seq", "workItemId"
),
-- The item's own recorded submission follows its report: completed → committed, otherwise not committed.
effect AS (
  UPDATE "SideEffect" s SET "outcome" = i."effectOutcome",
    "externalRecordId" = CASE WHEN i."effectOutcome" = 'committed' THEN COALESCE(i."externalRecordId", s."externalRecordId") ELSE s."externalRecordId" END,
    "externalVersion" = CASE WHEN i."effectOutcome" = 'committed' THEN COALESCE(i."externalVersion", s."externalVersion") ELSE s."externalVersion" END,
    "rowVersion" = s."rowVersion" + 1, "updatedAt" = now.t
  FROM done d JOIN item i ON i."id" = d."id", now
  WHERE d."operationId" IS NOT NULL AND s."operationId" = d."operationId" AND s."outcome" = 'unknown'
  RETURNING s."id", s."taskId", d."id" AS "workItemId", d."status", i."actor", i."effectOutcome"
),
settled AS (
  INSERT INTO "LedgerEvent" ${EVENT_COLUMNS}
  SELECT e."taskId", e."workItemId", 'sideEffect', e."id", e."actor", '${LedgerEvent.sideEffectSettled}', 'unknown', e."effectOutcome", 'work item ' || e."status", NULL, now.t
  FROM effect e, now
  RETURNING "seq", "workItemId"
),
candidate AS (
  SELECT w."id", w."taskId", w."attempt", w."preparedIntentVersion"
  FROM "WorkItem" w
  WHERE w."status" = 'queued'${
    fromHead
      ? `
    AND (w."createdAt", w."id") >= ($18::timestamp, $19::text)`
      : ""
  }
    AND ($16::text[] IS NULL OR w."toolName" = ANY($16::text[]))
    AND ${NOT_QUARANTINED_SQL}
    AND (SELECT t."stage" = 'active' AND t."cancelRequestedAt" IS NULL AND t."intentVersion" = w."preparedIntentVersion" FROM "Task" t WHERE t."id" = w."taskId")
  ORDER BY w."createdAt", w."id"
  LIMIT ${count}
  FOR UPDATE OF w SKIP LOCKED
),
task AS (
  SELECT t."id", t."intentVersion" FROM "Task" t
  WHERE t."id" IN (SELECT "taskId" FROM candidate) AND t."stage" = 'active' AND t."cancelRequestedAt" IS NULL
  FOR KEY SHARE OF t
),
claimed AS (
  UPDATE "WorkItem" w SET "status" = 'running', "leaseOwner" = $14, "leaseToken" = gen_random_uuid()::text,
    "leaseExpiresAt" = now.t + make_interval(secs => $15::double precision / 1000), "heartbeatAt" = now.t,
    "startedAt" = COALESCE(w."startedAt", now.t), "attempt" = w."attempt" + 1, "rowVersion" = w."rowVersion" + 1, "updatedAt" = now.t
  FROM candidate c JOIN task k ON k."id" = c."taskId" AND k."intentVersion" = c."preparedIntentVersion", now
  WHERE w."id" = c."id" AND w."status" = 'queued'
  RETURNING w.*, NULL::text AS "_from"
),
claim_event AS (
  INSERT INTO "LedgerEvent" ${EVENT_COLUMNS}
  SELECT c."taskId", c."id", 'workItem', c."id", $17, '${LedgerEvent.workItemClaimed}', 'queued', 'running', NULL,
    jsonb_build_object('attempt', c."attempt", 'leaseExpiresAt', ${iso(`c."leaseExpiresAt"`)}), now.t
  FROM claimed c, now
  RETURNING "seq", "workItemId"
)
SELECT 'claimed' AS "_kind", e."seq" AS "_seq", NULL::int AS "_effectSeq", ${WORK_ITEM_COLUMNS.map((c) => `c."${c}"`).join(", ")}
FROM claimed c JOIN claim_event e ON e."workItemId" = c."id"
UNION ALL
-- A report's row is the whole item only when the caller wants it back (a worker's own report over HTTP); a pool's
-- slots need only its id and outcome (the rest is the largest part of the answer).
SELECT 'done', f."seq", (SELECT min(s."seq") FROM settled s WHERE s."workItemId" = d."id"),
  ${WORK_ITEM_COLUMNS.map((c) => (whole || c === "id" || c === "taskId" || c === "status" ? `d."${c}"` : "NULL")).join(", ")}
FROM done d JOIN finished f ON f."workItemId" = d."id"
UNION ALL
-- Always one row with how many candidates there were: fewer claimed than that means a candidate lost its task's
-- re-check (a boundary committed meanwhile), which is worth another look at once.
SELECT 'candidates', (SELECT count(*) FROM candidate)::int, NULL, ${WORK_ITEM_COLUMNS.map(() => "NULL").join(", ")}`;

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
  const count = claim?.count ?? 0;
  if (count > 0) checkSqlMove("claim");
  const from = count > 0 ? (claim?.from ?? null) : null;
  const params = [...reportParams(reports), claim?.workerId ?? null, claim?.leaseMs ?? 0, claim?.toolNames ?? null, claim ? `worker:${claim.workerId}` : null];
  if (from) params.push(from.createdAt.toISOString().replace("T", " ").replace("Z", ""), from.id);
  const whole = options.wholeRows ?? false;
  const rows = await pg.query(
    reportsAndClaims(count, !!from, whole),
    params,
    `stopline_reports_and_claims_${count}${from ? "_from" : ""}${whole ? "_whole" : ""}`,
  );
  const out: ReportsAndClaims = { done: new Map(), claimed: [], candidates: 0 };
  const events: Parameters<typeof announce>[0] = [];
  const outcomes = new Map(reports.map((r) => [r.input.workItemId, r.input.outcome]));
  for (const row of rows) {
    if (row._kind === "candidates") {
      out.candidates = row._seq as number;
      continue;
    }
    const item = own<WorkItem>(row);
    if (row._kind === "claimed") {
      out.claimed.push(item);
      events.push({ seq: row._seq as number, taskId: item.taskId, workItemId: item.id, type: LedgerEvent.workItemClaimed, toState: WorkItemStatus.running });
      continue;
    }
    out.done.set(item.id, item);
    events.push({ seq: row._seq as number, taskId: item.taskId, workItemId: item.id, type: LedgerEvent.workItemFinished, toState: item.status });
    if (row._effectSeq != null) {
      events.push({
        seq: row._effectSeq as number,
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

// ---- the boundary -----------------------------------------------------------------------------------------

const BOUNDARY = `
WITH ${NOW},
current AS (SELECT * FROM "Task" WHERE "id" = $1 FOR UPDATE),
recorded AS (
  UPDATE "Task" t SET "stage" = 'cancel_requested', "intentVersion" = c."intentVersion" + 1, "cancelIntentVersion" = c."intentVersion" + 1,
    "cancelRequestedAt" = now.t, "cancelReason" = $2, "cancelRequestedBy" = $3, "cancelRequestedById" = $4,
    "cancelScope" = $5, "cancelScopeRef" = $6, "rowVersion" = t."rowVersion" + 1, "updatedAt" = now.t
  FROM current c, now
  WHERE t."id" = c."id" AND c."stage" = 'active' AND c."cancelRequestedAt" IS NULL
  RETURNING t.*
),
event AS (
  INSERT INTO "LedgerEvent" ${EVENT_COLUMNS}
  SELECT r."id", NULL, 'task', r."id", $3, '${LedgerEvent.taskCancelRequested}', 'active', 'cancel_requested', $2,
    jsonb_build_object('intentVersion', r."intentVersion", 'previousIntentVersion', r."intentVersion" - 1, 'scope', $5::text, 'scopeRef', $6::text), now.t
  FROM recorded r, now
  RETURNING "seq"
)
SELECT true AS "_recorded", r.*, (SELECT "seq" FROM event) AS "_seq" FROM recorded r
UNION ALL
SELECT false, c.*, NULL FROM current c WHERE NOT EXISTS (SELECT 1 FROM recorded)`;

/**
 * Invariant 1 in one statement: intent version +1, cancelRequestedAt (the database's clock), reason, actor and
 * the event, and what the Stop was for (its scope: this task, a conversation, a person, an incident). A task that
 * already has a boundary, or has ended, is returned as it is (recorded: false).
 */
export async function recordBoundaryOnPg(
  pg: PgDirect,
  input: { taskId: string; reason: string | null; actor: string; actorId?: string | null; scope?: StopScope; scopeRef?: string | null },
): Promise<{ task: Task | null; recorded: boolean }> {
  checkSqlMove("boundary");
  const [row] = await pg.query(
    BOUNDARY,
    [input.taskId, input.reason, input.actor, input.actorId ?? null, input.scope ?? StopScope.task, input.scopeRef ?? null],
    "stopline_boundary",
  );
  if (!row) return { task: null, recorded: false };
  if (row._recorded)
    announce([{ seq: row._seq as number, taskId: input.taskId, workItemId: null, type: LedgerEvent.taskCancelRequested, toState: TaskStage.cancelRequested }]);
  return { task: own<Task>(row), recorded: row._recorded as boolean };
}

// ---- removal of queued children ---------------------------------------------------------------------------

const CANCEL_QUEUED = (claimRun: boolean) => `
WITH ${NOW},
boundary AS (SELECT "cancelRequestedAt" AS at FROM "Task" WHERE "id" = $1 AND "cancelRequestedAt" IS NOT NULL),
removed AS (
  UPDATE "WorkItem" w SET "status" = 'cancelled', "finishedAt" = now.t, "rowVersion" = w."rowVersion" + 1, "updatedAt" = now.t
  FROM now, boundary WHERE w."taskId" = $1 AND w."status" = 'queued'
  RETURNING w."id"
),
events AS (
  INSERT INTO "LedgerEvent" ${EVENT_COLUMNS}
  SELECT $1, r."id", 'workItem', r."id", $2, '${LedgerEvent.workItemRemovedFromDispatch}', 'queued', 'cancelled',
    'never started: cancelled at ' || ${iso(`b.at`)}, NULL, now.t
  FROM removed r, boundary b, now
  RETURNING "seq", "workItemId"
)${
  claimRun
    ? `,
-- The engine run's lease on the task (engine-lease.ts), in the same statement: independent of the removal above,
-- which applies whoever wins the run.
run AS (
  UPDATE "Task" t SET "engineOwner" = $3, "engineLeaseExpiresAt" = now.t + make_interval(secs => $4::double precision / 1000)
  FROM now WHERE t."id" = $1 AND t."stage" = '${TaskStage.cancelRequested}'
    AND (t."engineLeaseExpiresAt" IS NULL OR t."engineLeaseExpiresAt" < now.t OR t."engineOwner" = $3)
  RETURNING t.*
)
-- One row: the claimed task's columns (nulls when another process holds the run) and what was removed.
SELECT r.*, e."_seqs", e."_workItemIds"
FROM (SELECT array_agg("seq") AS "_seqs", array_agg("workItemId") AS "_workItemIds" FROM events) e LEFT JOIN run r ON true`
    : `
SELECT "seq", "workItemId" FROM events`
}`;

/**
 * Every queued child of a task leaves dispatch in one statement, each with its event — only once the task's
 * boundary exists. A claim that locked a child first makes this wait for it and then skip it (it is running:
 * the engine stops it).
 */
export async function cancelQueuedOnPg(pg: PgDirect, taskId: string, actor: string): Promise<number> {
  checkSqlMove("removeQueued");
  const rows = await pg.query<{ seq: number; workItemId: string }>(CANCEL_QUEUED(false), [taskId, actor], "stopline_cancel_queued");
  announce(
    rows.map((r) => ({ seq: r.seq, taskId, workItemId: r.workItemId, type: LedgerEvent.workItemRemovedFromDispatch, toState: WorkItemStatus.cancelled })),
  );
  return rows.length;
}

/**
 * The start of an engine run on PostgreSQL, in one statement: the queued children leave dispatch (as
 * cancelQueuedOnPg) and the run's lease on the task is claimed (as claimEngineRun). Returns the task as the claim
 * left it, or null when another live process holds the run (the removal applied all the same).
 */
export async function cancelQueuedAndClaimRunOnPg(pg: PgDirect, taskId: string, actor: string, run: { owner: string; leaseMs: number }): Promise<Task | null> {
  checkSqlMove("removeQueued");
  const [row] = await pg.query<Row & { _seqs: number[] | null; _workItemIds: string[] | null }>(
    CANCEL_QUEUED(true),
    [taskId, actor, run.owner, run.leaseMs],
    "stopline_cancel_queued_claim_run",
  );
  const seqs = row._seqs ?? [];
  announce(
    seqs.map((seq, i) => ({ seq, taskId, workItemId: row._workItemIds![i], type: LedgerEvent.workItemRemovedFromDispatch, toState: WorkItemStatus.cancelled })),
  );
  return row.id == null ? null : own<Task>(row);
}

// ---- task creation ----------------------------------------------------------------------------------------

const CREATE_TASK = `
WITH ${NOW},
created AS (
  INSERT INTO "Task" ("id","ownerId","conversationId","title","riskLevel","stage","turnId","createdById","createdAt","updatedAt")
  SELECT $1, $2, $3, $4, $5, 'active', $7, $8, now.t, now.t FROM now
  ON CONFLICT ("conversationId","turnId") DO NOTHING
  RETURNING *
),
event AS (
  INSERT INTO "LedgerEvent" ${EVENT_COLUMNS}
  SELECT c."id", NULL, 'task', c."id", $6, '${LedgerEvent.taskCreated}', NULL, 'active', NULL,
    jsonb_build_object('title', c."title", 'conversationId', c."conversationId", 'riskLevel', c."riskLevel", 'turnId', c."turnId"), now.t
  FROM created c, now
  RETURNING "seq"
)
SELECT c.*, (SELECT "seq" FROM event) AS "_seq" FROM created c`;

/**
 * Creates a task; with a turn id, only if its conversation has no task for that turn yet (null then: a
 * concurrent insert of the same turn — a Stop recorded against it, or the same message twice — made it first;
 * the unique index makes this statement wait for that transaction and then skip).
 */
export async function createTaskOnPg(
  pg: PgDirect,
  input: { title: string; ownerId: string; conversationId: string | null; riskLevel: string; turnId?: string | null; createdById?: string | null },
  actor: string,
): Promise<Task | null> {
  const id = randomUUID();
  const [row] = await pg.query(
    CREATE_TASK,
    [id, input.ownerId, input.conversationId, input.title, input.riskLevel, actor, input.turnId ?? null, input.createdById ?? null],
    "stopline_create_task",
  );
  if (!row) return null;
  announce([{ seq: row._seq as number, taskId: id, workItemId: null, type: LedgerEvent.taskCreated, toState: TaskStage.active }]);
  return own<Task>(row);
}

/** An event on its own (one statement): the record of a refused call (a stale lease token, a refused checkpoint). */
export async function insertEventOnPg(pg: PgDirect, e: EventInput): Promise<number> {
  const [row] = await pg.query<{ seq: number }>(
    `INSERT INTO "LedgerEvent" ${EVENT_COLUMNS} VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10::jsonb, timezone('UTC', clock_timestamp())) RETURNING "seq"`,
    [e.taskId ?? null, e.workItemId ?? null, e.entityType, e.entityId, e.actor, e.type, e.fromState ?? null, e.toState ?? null, e.reason ?? null, json(e.data)],
    "stopline_insert_event",
  );
  announce([{ seq: row.seq, taskId: e.taskId ?? null, workItemId: e.workItemId ?? null, type: e.type, toState: e.toState ?? null }]);
  return row.seq;
}

// ---- a Stop with nothing in flight ------------------------------------------------------------------------

/** The reason recorded when a task's stopping is over (both write paths use it). */
export const TASK_CANCELLED_REASON = "every child is stopped, finished, or under reconciliation";

const SETTLE_QUIETLY = `
WITH ${NOW},
current AS (SELECT "id", "cancelPlannedAt" FROM "Task" WHERE "id" = $1 FOR UPDATE),
settled AS (
  UPDATE "Task" k SET "cancelPlan" = COALESCE(k."cancelPlan", $2::jsonb), "cancelPlannedAt" = COALESCE(k."cancelPlannedAt", now.t),
    "stage" = 'cancelled', "settledAt" = now.t, "rowVersion" = k."rowVersion" + 1, "updatedAt" = now.t,
    "engineOwner" = NULL, "engineLeaseExpiresAt" = NULL -- the run is over: its lease ends with it
  FROM current c, now
  WHERE k."id" = c."id" AND k."stage" = 'cancel_requested' AND k."settledAt" IS NULL
    AND NOT EXISTS (SELECT 1 FROM "WorkItem" w WHERE w."taskId" = $1 AND w."status" = ANY($3::text[]))
    AND NOT EXISTS (SELECT 1 FROM "Resource" r WHERE r."taskId" = $1 AND r."state" IN ('${ResourceState.held}', '${ResourceState.releaseRequested}'))
  RETURNING k."id", c."cancelPlannedAt" IS NULL AS "plannedNow"
),
events AS (
  INSERT INTO "LedgerEvent" ${EVENT_COLUMNS}
  SELECT $1, NULL, 'task', $1, $4, v.type, v."fromState", v."toState", v.reason, v.data, now.t
  FROM settled s, now, (VALUES
    (1, '${LedgerEvent.cancellationPlanned}', NULL, NULL, $5::text, $2::jsonb),
    (2, '${LedgerEvent.taskCancelled}', 'cancel_requested', 'cancelled', $6::text, NULL::jsonb),
    (3, '${LedgerEvent.cancellationSettled}', NULL, NULL, NULL::text,
       jsonb_build_object('openReviewItems', (SELECT count(*) FROM "ReviewItem" r WHERE r."taskId" = $1 AND r."status" = ANY($7::text[]))))
  ) AS v(n, type, "fromState", "toState", reason, data)
  WHERE v.n <> 1 OR s."plannedNow"
  ORDER BY v.n
  RETURNING "seq", "type", "toState"
)
SELECT "seq", "type", "toState" FROM events ORDER BY "seq"`;

/**
 * The end of a Stop that found nothing in flight, as one statement: the plan (if none was recorded), the task's
 * move to `cancelled` and its settlement, each with its event, in that order — the same facts as the engine's
 * full pass writes in its last transaction. Applies only while no child is queued or being stopped (the
 * caller checked that nothing else is pending: no resource held, no effect to reconcile or review). Returns
 * whether it settled the task.
 */
export async function settleQuietlyOnPg(
  pg: PgDirect,
  input: { taskId: string; plan: unknown; planReason: string | null; busyStatuses: string[]; openReviewStatuses: string[]; actor: string },
): Promise<boolean> {
  checkSqlMove("settleStopped");
  const rows = await pg.query<{ seq: number; type: TaskEventType; toState: string | null }>(
    SETTLE_QUIETLY,
    [input.taskId, JSON.stringify(input.plan), input.busyStatuses, input.actor, input.planReason, TASK_CANCELLED_REASON, input.openReviewStatuses],
    "stopline_settle_quietly",
  );
  announce(rows.map((r) => ({ seq: r.seq, taskId: input.taskId, workItemId: null, type: r.type, toState: r.toState })));
  return rows.some((r) => r.type === LedgerEvent.taskCancelled);
}

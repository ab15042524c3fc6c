import { NOT_QUARANTINED_SQL } from "./guards";
import type { Database as Sqlite } from "better-sqlite3";
import type { Database } from "../db/client";
import type { WorkItem } from "../db/generated/sqlite/client.ts";
import { publishCommitted, type CommittedEvent } from "../events/bus";
import type { AppError } from "../errors";
import { completionFields, completionRefusal, settledOutcome, type CompleteInput } from "./completion-rules";
import { staleLeaseError } from "./lease";
import { isLeasedItem, SideEffectOutcome, StopScope, TaskStage, WorkItemStatus } from "./states";
import type { EventInput } from "./write";
import { checkSqlMove } from "./transitions";
import { LedgerEvent } from "./events";

/**
 * The ledger's hot path (claim and completion) on embedded SQLite, as plain SQL in one synchronous
 * `BEGIN IMMEDIATE` transaction on Prisma's own connection. Same rules, same rows, same events as the
 * Prisma path in claim-work-item.ts / complete-work-item.ts (which PostgreSQL uses); the decisions are
 * the shared pure functions, only the I/O differs. Why: Prisma's executor costs ~250 µs per statement —
 * more than the commit's fsync — and holds SQLite's single write lock meanwhile.
 * The integration suite runs every scenario against both paths (SQLite and PostgreSQL projects).
 */

type Direct = NonNullable<Database["sqlite"]>;

// Prepared once per connection: compiling a statement costs about as much as running it.
type Statement = { get(...params: unknown[]): unknown; all(...params: unknown[]): unknown[] };
const statements = new WeakMap<Sqlite, Map<string, Statement>>();
function prepared(db: Sqlite, sql: string): Statement {
  let cache = statements.get(db);
  if (!cache) statements.set(db, (cache = new Map()));
  let statement = cache.get(sql);
  if (!statement) cache.set(sql, (statement = db.prepare(sql).safeIntegers(false)));
  return statement;
}

/** Prisma's SQLite DateTime text format (adapter-better-sqlite3, iso8601). */
const sqliteTime = (d: Date) => d.toISOString().replace("Z", "+00:00");

// A work item's columns that SQLite stores as text or integers, by the type Prisma gives them (sqlite-rows.test.ts
// checks these lists against prisma/models.prisma).
export const WORK_ITEM_DATE_FIELDS = [
  "leaseExpiresAt",
  "heartbeatAt",
  "reconcileDeadline",
  "serviceRunningAt",
  "checkpointPassedAt",
  "cancelDispatchedAt",
  "cancelAnsweredAt",
  "cancelWithdrawnAt",
  "stopRequestedAt",
  "stopSettledAt",
  "stopPlannedAt",
  "createdAt",
  "startedAt",
  "submittedAt",
  "finishedAt",
  "updatedAt",
] as const;
export const WORK_ITEM_JSON_FIELDS = ["input", "partialResult", "result", "progress", "stopPlan"] as const;
export const WORK_ITEM_BOOL_FIELDS = ["commitsEffect", "partialComplete"] as const;

/** A WorkItem row as Prisma would return it. */
export function toWorkItem(row: Record<string, unknown>): WorkItem {
  const out: Record<string, unknown> = { ...row };
  for (const f of WORK_ITEM_DATE_FIELDS) out[f] = row[f] == null ? null : new Date(row[f] as string);
  for (const f of WORK_ITEM_JSON_FIELDS) out[f] = row[f] == null ? null : JSON.parse(row[f] as string);
  for (const f of WORK_ITEM_BOOL_FIELDS) out[f] = row[f] == null ? null : row[f] === 1;
  return out as unknown as WorkItem;
}

const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));

function insertEvent(db: Sqlite, e: EventInput, now: Date, committed: CommittedEvent[]) {
  const row = prepared(
    db,
    `INSERT INTO "LedgerEvent" ("taskId","workItemId","entityType","entityId","actor","type","fromState","toState","reason","data","createdAt")
       VALUES (?,?,?,?,?,?,?,?,?,?,?) RETURNING "seq"`,
  ).get(
    e.taskId ?? null,
    e.workItemId ?? null,
    e.entityType,
    e.entityId,
    e.actor,
    e.type,
    e.fromState ?? null,
    e.toState ?? null,
    e.reason ?? null,
    json(e.data),
    sqliteTime(now),
  ) as { seq: number };
  committed.push({ seq: row.seq, taskId: e.taskId ?? null, workItemId: e.workItemId ?? null, type: e.type, toState: e.toState ?? null });
}

/** Runs a direct transaction; events are announced after the commit; a deferred rejection is thrown after it. */
async function run<T>(direct: Direct, fn: (db: Sqlite, now: Date, committed: CommittedEvent[]) => T | { rejected: AppError }): Promise<T> {
  const committed: CommittedEvent[] = [];
  const result = await direct.transaction((db) => {
    committed.length = 0;
    return fn(db, new Date(), committed);
  });
  publishCommitted(committed);
  if (result && typeof result === "object" && "rejected" in (result as object)) throw (result as { rejected: AppError }).rejected;
  return result as T;
}

export function claimOnSqlite(direct: Direct, input: { workerId: string; toolNames?: string[]; leaseMs: number; leaseToken: string }) {
  checkSqlMove("claim");
  return run<WorkItem | null>(direct, (db, now, committed) => {
    const tools = input.toolNames ?? [];
    // The claim's guard (invariant 2): queued, task active with no boundary, prepared under the current intent.
    // The candidate comes from an ordered scan of the partial index of queued items (WorkItem_queued_idx: hence
    // the literal 'queued'), its task checked per row — a plan SQLite keeps without table statistics.
    const candidate = prepared(
      db,
      `SELECT w."id", w."taskId", w."attempt" FROM "WorkItem" w
         WHERE w."status" = 'queued'
         ${tools.length ? `AND w."toolName" IN (${tools.map(() => "?").join(",")})` : ""}
         AND ${NOT_QUARANTINED_SQL}
         AND (SELECT t."stage" = 'active' AND t."cancelRequestedAt" IS NULL AND t."intentVersion" = w."preparedIntentVersion" FROM "Task" t WHERE t."id" = w."taskId")
         ORDER BY w."createdAt" ASC, w."id" ASC LIMIT 1`,
    ).get(...tools) as { id: string; taskId: string; attempt: number } | undefined;
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

/** Removes every queued child of a task from dispatch (same rows and events as execute-cancellation's Prisma path). */
export function cancelQueuedOnSqlite(direct: Direct, taskId: string, actor: string) {
  checkSqlMove("removeQueued");
  return run<number>(direct, (db, now, committed) => {
    const task = prepared(db, `SELECT "cancelRequestedAt" FROM "Task" WHERE "id" = ?`).get(taskId) as { cancelRequestedAt: string | null } | undefined;
    if (!task?.cancelRequestedAt) return 0; // only once the boundary exists
    const boundary = new Date(task.cancelRequestedAt);
    const rows = prepared(db, `SELECT "id" FROM "WorkItem" WHERE "taskId" = ? AND "status" = ?`);
    const ids = (rows.all(taskId, WorkItemStatus.queued) as { id: string }[]).map((r) => r.id);
    const update = prepared(
      db,
      `UPDATE "WorkItem" SET "status" = ?, "finishedAt" = ?, "rowVersion" = "rowVersion" + 1, "updatedAt" = ? WHERE "id" = ? AND "status" = ? RETURNING "id"`,
    );
    for (const id of ids) {
      if (!update.get(WorkItemStatus.cancelled, sqliteTime(now), sqliteTime(now), id, WorkItemStatus.queued)) continue;
      insertEvent(
        db,
        {
          taskId,
          workItemId: id,
          entityType: "workItem",
          entityId: id,
          actor,
          type: LedgerEvent.workItemRemovedFromDispatch,
          fromState: WorkItemStatus.queued,
          toState: WorkItemStatus.cancelled,
          reason: `never started: cancelled at ${boundary.toISOString()}`,
        },
        now,
        committed,
      );
    }
    return ids.length;
  });
}

/** The cancellation boundary (same row change and event as request-cancellation.ts's Prisma path). */
export function recordBoundaryOnSqlite(
  direct: Direct,
  input: { taskId: string; reason: string | null; actor: string; actorId?: string | null; scope?: StopScope; scopeRef?: string | null },
) {
  type TaskRow = {
    id: string;
    stage: string;
    intentVersion: number;
    rowVersion: number;
    cancelRequestedAt: string | null;
    cancelIntentVersion: number | null;
    cancelReason: string | null;
    cancelRequestedBy: string | null;
  };
  checkSqlMove("boundary");
  return run<{ task: TaskRow | null; recorded: boolean }>(direct, (db, now, committed) => {
    const select = prepared(
      db,
      `SELECT "id","stage","intentVersion","rowVersion","cancelRequestedAt","cancelIntentVersion","cancelReason","cancelRequestedBy" FROM "Task" WHERE "id" = ?`,
    );
    const task = select.get(input.taskId) as TaskRow | undefined;
    if (!task) return { task: null, recorded: false };
    if (task.cancelRequestedAt || task.stage !== TaskStage.active) return { task, recorded: false };
    const intentVersion = task.intentVersion + 1;
    const updated = prepared(
      db,
      `UPDATE "Task" SET "stage" = ?, "intentVersion" = ?, "cancelIntentVersion" = ?, "cancelRequestedAt" = ?, "cancelReason" = ?,
        "cancelRequestedBy" = ?, "cancelRequestedById" = ?, "cancelScope" = ?, "cancelScopeRef" = ?, "rowVersion" = "rowVersion" + 1, "updatedAt" = ?
      WHERE "id" = ? AND "stage" = ? AND "rowVersion" = ? AND "cancelRequestedAt" IS NULL
      RETURNING "id","stage","intentVersion","rowVersion","cancelRequestedAt","cancelIntentVersion","cancelReason","cancelRequestedBy"`,
    ).get(
      TaskStage.cancelRequested,
      intentVersion,
      intentVersion,
      sqliteTime(now),
      input.reason,
      input.actor,
      input.actorId ?? null,
      input.scope ?? StopScope.task,
      input.scopeRef ?? null,
      sqliteTime(now),
      task.id,
      TaskStage.active,
      task.rowVersion,
    ) as TaskRow | undefined;
    if (!updated) return { task, recorded: false }; // cannot happen under the write lock
    insertEvent(
      db,
      {
        taskId: task.id,
        entityType: "task",
        entityId: task.id,
        actor: input.actor,
        type: LedgerEvent.taskCancelRequested,
        fromState: TaskStage.active,
        toState: TaskStage.cancelRequested,
        reason: input.reason,
        data: { intentVersion, previousIntentVersion: task.intentVersion, scope: input.scope ?? StopScope.task, scopeRef: input.scopeRef ?? null },
      },
      now,
      committed,
    );
    return { task: updated, recorded: true };
  });
}

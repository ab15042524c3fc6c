import type { Database, Tx } from "../db/client";
import { AppError, ErrorCode } from "../errors";
import { publishCommitted, type CommittedEvent } from "../events/bus";
import { IllegalTransitionError } from "./errors";
import type { AnyEventInput, DistributiveOmit, EventInput } from "./events";
import { canTransition, type Entity } from "./transitions";

export type { EventInput } from "./events";

export interface Writer {
  readonly tx: Tx;
  readonly provider: Database["provider"];
  /** Appends an event of the catalogue (lib/ledger/events.ts) in this transaction. */
  event(e: AnyEventInput): Promise<void>;
  /** Appends many events in one statement (bulk transitions: removing a thousand queued children). */
  events(list: AnyEventInput[]): Promise<void>;
  /** The database's clock (leases are judged by it, not by the caller's). */
  now(): Promise<Date>;
  /**
   * Locks one row until this transaction ends (PostgreSQL; SQLite has one writer at a time anyway). Take it before
   * reading a row whose state decides the compare-and-set that follows, so that a concurrent change waits (or is
   * seen) instead of making the write miss. `exclusive` (FOR UPDATE) also waits for the share locks that claims,
   * schedules and checkpoints hold on their task: take it on a task that is about to leave "active".
   */
  lockRow(entity: Entity, id: string, mode?: "exclusive"): Promise<void>;
  /**
   * Throw `error` after this transaction COMMITS: for rejections that must leave a trace (a stale lease
   * token, a checkpoint after the boundary) — the rejection event is kept, the caller still gets the error.
   * Return its result from the transaction function (throwing inside would roll the trace back).
   */
  rejectAfterCommit(error: AppError): Rejected;
}

export const REJECTED: unique symbol = Symbol("rejected after commit");
export type Rejected = typeof REJECTED;

/**
 * Runs `fn` in one ledger write transaction. Every state write is made through `casUpdate` (compare-and-set)
 * and every change appends its event through the same Writer, so the change and its event commit together.
 *
 * No global lock: writers run concurrently (SQLite still has one writer at a time: BEGIN IMMEDIATE, see
 * lib/db/sqlite-adapter.ts). On PostgreSQL event sequence numbers can therefore commit out of order; readers
 * deliver events in the order of their transaction ids, and only below the oldest transaction still running
 * (lib/events/read-events.ts), which keeps replay after Last-Event-ID in order and exactly once. Facts that
 * must be decided once ("one plan per task", "one provider cancel per child") are guarded columns or unique
 * rows, never a count of events.
 *
 * Side effects (in-process notifications) run only after the commit.
 */
export async function writeLedger<T>(database: Database, fn: (w: Writer) => Promise<T | Rejected>): Promise<T> {
  const committed: CommittedEvent[] = [];
  let deferred: AppError | undefined;
  const result = await database.prisma.$transaction(async (tx) => {
    committed.length = 0;
    deferred = undefined;
    const writer: Writer = {
      tx,
      provider: database.provider,
      async event(e) {
        const row = await tx.ledgerEvent.create({ data: eventRow(e), select: { seq: true } });
        committed.push({ seq: row.seq, taskId: e.taskId ?? null, workItemId: e.workItemId ?? null, type: e.type, toState: e.toState ?? null });
      },
      async events(list) {
        if (!list.length) return;
        const rows = await tx.ledgerEvent.createManyAndReturn({
          data: list.map(eventRow),
          select: { seq: true, taskId: true, workItemId: true, type: true, toState: true },
        });
        // The rows' types are the list's own (EventInput, typed by the catalogue).
        committed.push(...(rows as CommittedEvent[]).sort((a, b) => a.seq - b.seq));
      },
      now: () => databaseNow(tx, database.provider),
      async lockRow(entity, id, mode) {
        if (database.provider === "postgres")
          await tx.$queryRawUnsafe(`SELECT 1 FROM "${TABLE_OF[entity]}" WHERE "id" = $1 FOR ${mode === "exclusive" ? "UPDATE" : "NO KEY UPDATE"}`, id);
      },
      rejectAfterCommit(error) {
        deferred = error;
        return REJECTED;
      },
    };
    return fn(writer);
  });
  publishCommitted(committed);
  if (deferred || result === REJECTED) throw deferred;
  return result as T;
}

const eventRow = (e: AnyEventInput) => ({
  taskId: e.taskId ?? null,
  workItemId: e.workItemId ?? null,
  entityType: e.entityType,
  entityId: e.entityId,
  actor: e.actor,
  type: e.type,
  fromState: e.fromState ?? null,
  toState: e.toState ?? null,
  reason: ("reason" in e ? e.reason : null) ?? null,
  data: (e.data ?? undefined) as never,
});

export async function databaseNow(tx: Pick<Tx, "$queryRawUnsafe">, provider: Database["provider"]): Promise<Date> {
  if (provider === "postgres") {
    const rows = await tx.$queryRawUnsafe<{ now: Date }[]>(`SELECT clock_timestamp() AS now`);
    return new Date(rows[0].now);
  }
  // Embedded SQLite runs inside this process and reads the same OS clock (its 'now' is this machine's
  // time), so asking it would cost a round trip and return the same instant.
  return new Date();
}

const TABLE_OF: Record<Entity, string> = {
  task: "Task",
  workItem: "WorkItem",
  resource: "Resource",
  resourceIntent: "ResourceIntent",
  sideEffect: "SideEffect",
  reviewItem: "ReviewItem",
  incident: "Incident",
};

type StateField = {
  task: "stage";
  workItem: "status";
  resource: "state";
  resourceIntent: "state";
  sideEffect: "outcome";
  reviewItem: "status";
  incident: "state";
};
const STATE_FIELD: StateField = {
  task: "stage",
  workItem: "status",
  resource: "state",
  resourceIntent: "state",
  sideEffect: "outcome",
  reviewItem: "status",
  incident: "state",
};

export interface CasInput<E extends Entity> {
  entity: E;
  id: string;
  /** The state the caller observed; the write happens only if the row is still in it. */
  from: string;
  to: string;
  /** Further guards (lease token, intent version …) that must also still hold. */
  guard?: Record<string, unknown>;
  data?: Record<string, unknown>;
  event: DistributiveOmit<EventInput, "entityType" | "entityId" | "fromState" | "toState">;
}

type Row = Record<string, unknown>;
type ModelDelegate = { updateManyAndReturn(args: unknown): Promise<Row[]> };

/**
 * Compare-and-set of one row's state plus its event, inside a writeLedger transaction. The transition must
 * be in the table (IllegalTransitionError otherwise). Returns the updated row, or null — writing nothing —
 * when the row is no longer in `from` or a guard no longer holds; the caller decides whether that is a
 * conflict.
 */
export async function casUpdate<E extends Entity>(w: Writer, input: CasInput<E>): Promise<Row | null> {
  if (!canTransition(input.entity, input.from, input.to)) throw new IllegalTransitionError(input.entity, input.from, input.to);
  // A task leaving "active" must not straddle a claim, schedule or checkpoint (they hold its row FOR KEY SHARE).
  if (input.entity === "task" && input.from === "active") await w.lockRow("task", input.id, "exclusive");
  const field = STATE_FIELD[input.entity];
  const delegate = (w.tx as unknown as Record<E, ModelDelegate>)[input.entity];
  const rows = await delegate.updateManyAndReturn({
    where: { id: input.id, [field]: input.from, ...input.guard },
    data: { [field]: input.to, rowVersion: { increment: 1 }, ...input.data },
  });
  if (rows.length !== 1) return null;
  await w.event({ ...input.event, entityType: input.entity, entityId: input.id, fromState: input.from, toState: input.to } as EventInput);
  return rows[0];
}

export function conflict(entity: string, id: string, expected: string, current: string | undefined): AppError {
  return current === undefined
    ? new AppError(ErrorCode.notFound, `${entity} ${id} not found`, { entity, id })
    : new AppError(ErrorCode.conflict, `${entity} ${id} is "${current}", not "${expected}"`, { entity, id, currentState: current, expectedState: expected });
}

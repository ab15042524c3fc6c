import { randomUUID } from "node:crypto";
import { onEngine, type Database } from "../db/client";
import { onCommitted } from "../events/bus";
import { holdProcessLease, releaseProcessLease } from "../ledger/process-lease";
import { recoverExpiredLeases } from "../ledger/recover-expired-leases";
import { ReviewItemStatus, TaskStage, WorkItemStatus } from "../ledger/states";
import { casUpdate, writeLedger } from "../ledger/write";
import { executeCancellation, finishCancellation } from "./execute-cancellation";
import type { EngineOptions } from "./engine-options";
import { cancelQueued } from "./steps/2-remove-queued";
import { cleanupLateSettled, reverifyOrphans } from "./steps/6-clean-up-and-verify";
import { reconcileOrphanReports, reconcileWorkItem, resolveAnsweredUncertainties } from "./steps/5-reconcile";
import { recordSettlement } from "./steps/8-record-settlement";
import { claimEngineRun, ENGINE_LEASE_MS, releaseEngineRun, renewEngineRun } from "./engine-lease";
import { executeChildCancellation } from "./execute-child-cancellation";
import { sweepIncidents } from "../incidents/sweep-incidents";
import { ENGINE_ACTOR } from "./step-log";
import { cancelQueuedAndClaimRunsOnPg } from "../ledger/sql/remove-queued";
import { Coalescer } from "../db/coalesce";
import { sendAgainIfTransient } from "../db/pg";
import type { Task } from "../db/generated/sqlite/client.ts";
import { LedgerEvent } from "../ledger/events";

/** The maintenance pass runs in one process at a time (the leader), whatever the number of instances. */
export const MAINTENANCE_LEASE = "maintenance";

/**
 * Runs cancellations in the background of the process that holds it (the app, or a worker process): it
 * starts as soon as this process commits a boundary, and a maintenance pass resumes whatever a restart or a
 * crash interrupted (invariant 8) — tasks still `cancel_requested` whose engine run is not alive, expired
 * leases, items awaiting reconciliation, and review items past their deadline.
 *
 * Across processes: one engine run per task at a time (an engine lease on the task, engine-lease.ts), one
 * maintenance pass at a time (the leader holds the "maintenance" process lease), and every step is a
 * compare-and-set or a fence, so a repeated run changes nothing that was already done.
 */
export class CancellationEngine {
  readonly #database: Database;
  /** This engine's identity in engine and maintenance leases. */
  readonly id = `engine-${randomUUID().slice(0, 8)}`;
  readonly #options: EngineOptions;
  readonly #runs = new Map<string, Promise<void>>();
  /** Children of scoped Stops this process ran, still being stopped when their pass ended → the stopped child (root). */
  readonly #childStopsWaiting = new Map<string, string>();
  #unsubscribe?: () => void;
  #timer?: NodeJS.Timeout;
  #maintaining = false;
  /** When each uncertain item was last asked about (the service is not asked more than every 10 s). */
  readonly #lastAsked = new Map<string, number>();
  readonly #lastFinished = new Map<string, number>();
  #lastOrphanReports = 0;
  /**
   * The starts of this engine's runs on PostgreSQL: the tasks whose Stops arrived while the previous start was in
   * flight start together, in one statement (a mass Stop, a busy hour: a statement's round trip costs more than the
   * start itself). In id order, so two engines' starts lock shared tasks in the same order.
   */
  readonly #starts: Coalescer<string, Task | null> | null;

  constructor(database: Database, options: EngineOptions) {
    this.#database = database;
    this.#options = options;
    this.#starts = onEngine(database, {
      sqlite: () => null,
      postgres: (pg) =>
        new Coalescer((taskIds: string[]) => {
          const sorted = [...taskIds].sort();
          // A deadlock victim or a serialization failure committed nothing: sent again rather than the runs left to maintenance.
          return sendAgainIfTransient(() => cancelQueuedAndClaimRunsOnPg(pg, sorted, ENGINE_ACTOR, { owner: this.id, leaseMs: ENGINE_LEASE_MS() }));
        }),
    });
  }

  start(maintenanceMs = Number(process.env.STOPLINE_MAINTENANCE_MS ?? 1_000)): this {
    // Boundaries this process recorded; another process's boundary is that process's to run (or, if it died,
    // the maintenance leader's).
    this.#unsubscribe = onCommitted((events) => {
      for (const e of events) {
        if (e.origin !== "local") continue;
        if (e.type === LedgerEvent.taskCancelRequested && e.taskId) void this.run(e.taskId);
        // A Stop of one child (a scoped Stop): its own pass, the task goes on.
        if (e.type === LedgerEvent.workItemStopRequested && e.workItemId) void this.runChild(e.workItemId);
      }
      // A child of a scoped Stop this process ran ended after the pass stopped waiting for it: finish that Stop now.
      for (const e of events) {
        const root = e.type === LedgerEvent.workItemFinished && e.workItemId ? this.#childStopsWaiting.get(e.workItemId) : undefined;
        if (!root) continue;
        this.#childStopsWaiting.delete(e.workItemId!);
        void this.runChild(root);
      }
    });
    this.#timer = setInterval(() => void this.maintain(), maintenanceMs);
    void this.maintain();
    return this;
  }

  async stop(): Promise<void> {
    this.#unsubscribe?.();
    clearInterval(this.#timer);
    while (this.#maintaining) await new Promise((r) => setTimeout(r, 10)); // let a pass under way finish
    await Promise.allSettled([...this.#runs.values()]);
    await releaseProcessLease(this.#database, { name: MAINTENANCE_LEASE, owner: this.id }).catch(() => {});
  }

  /**
   * Runs (or joins the running) cancellation of a task — unless another live process is running it (it holds
   * the task's engine lease): then this returns at once and that process finishes it.
   */
  run(taskId: string): Promise<void> {
    const running = this.#runs.get(taskId);
    if (running) return running;
    const run = this.#runLeased(taskId)
      .catch((error) => console.error(`cancellation of task ${taskId} failed; the maintenance pass will resume it`, error))
      .finally(() => this.#runs.delete(taskId));
    this.#runs.set(taskId, run);
    return run;
  }

  /** Runs (or joins the running) pass of a Stop of one child (execute-child-cancellation.ts). */
  runChild(workItemId: string): Promise<void> {
    const key = `work-item:${workItemId}`;
    const running = this.#runs.get(key);
    if (running) return running;
    const run = executeChildCancellation(this.#database, workItemId, this.#options)
      .then((stillStopping) => {
        for (const id of stillStopping) this.#childStopsWaiting.set(id, workItemId);
      })
      .catch((error) => console.error(`the Stop of work item ${workItemId} failed; the maintenance pass will resume it`, error))
      .finally(() => this.#runs.delete(key));
    this.#runs.set(key, run);
    return run;
  }

  async #runLeased(taskId: string): Promise<void> {
    // Queued children leave dispatch at once, before anything else (whoever runs it first wins, a repeat changes
    // nothing); then the run is claimed. On PostgreSQL both are one statement, shared with the starts of other runs.
    const task = this.#starts
      ? ((await this.#starts.load(taskId)) ?? null)
      : (await cancelQueued(this.#database, taskId), await claimEngineRun(this.#database, taskId, this.id));
    if (!task) return;
    const renew = setInterval(() => void renewEngineRun(this.#database, taskId, this.id).catch(() => {}), Math.max(100, ENGINE_LEASE_MS() / 3));
    let released = false;
    try {
      released = (await executeCancellation(this.#database, taskId, this.#options, { queuedCancelled: true, task })) === "settled_quietly";
    } finally {
      clearInterval(renew);
      // A quiet settlement ended the lease in its own statement.
      if (!released) await releaseEngineRun(this.#database, taskId, this.id).catch(() => {});
    }
  }

  /** One maintenance pass (also called by tests); only the leader's passes do anything. */
  async maintain(): Promise<void> {
    if (this.#maintaining) return;
    this.#maintaining = true;
    try {
      const database = this.#database;
      if (!(await holdProcessLease(database, { name: MAINTENANCE_LEASE, owner: this.id, ttlMs: Number(process.env.STOPLINE_MAINTENANCE_LEASE_MS ?? 10_000) })))
        return;
      await recoverExpiredLeases(database);
      const now0 = new Date();
      const pending = await readUnfinishedStops(database, this.id, now0);
      for (const t of pending) {
        if (this.#runs.has(t.id)) continue;
        if (t.stage !== TaskStage.cancelRequested) {
          // Its children all ended, but the pass that got there did not record its settlement (it died in between).
          await recordSettlement(database, t.id);
          continue;
        }
        if (!t.cancelPlannedAt || (t.engineOwner && t.engineOwner !== this.id)) {
          // A boundary whose engine run never happened (the process restarted), or whose run died with its
          // process: run it all again (each step is safe to repeat; what was done is not done twice).
          void this.run(t.id);
          continue;
        }
        // Children that settled late: reconcile, verify their resources, settle — at most every 5 s per task.
        if (Date.now() - (this.#lastFinished.get(t.id) ?? 0) < Math.min(5_000, this.#options.reconcileIntervalMs ?? 5_000)) continue;
        this.#lastFinished.set(t.id, Date.now());
        // A pass that failed before its end (an error, not a crash: its lease was released) is run again whole.
        if (!t.settledAt) void this.run(t.id);
        else await finishCancellation(database, t.id, this.#options);
      }
      // An incident's kill switch: anything of its tool still alive and not stopped is stopped now.
      for (const id of await sweepIncidents(database)) void this.runChild(id);
      // Scoped Stops (one child) whose pass has not settled: run again (each step is safe to repeat), at most every 5 s.
      const childStops = await database.prisma.workItem.findMany({
        where: { stopRequestedAt: { lt: new Date(Date.now() - 5_000) }, stopSettledAt: null },
        select: { id: true, stopRootId: true },
        take: 50,
      });
      for (const c of childStops) {
        if (c.stopRootId !== c.id || this.#runs.has(`work-item:${c.id}`)) continue;
        if (Date.now() - (this.#lastFinished.get(c.id) ?? 0) < 5_000) continue;
        this.#lastFinished.set(c.id, Date.now());
        void this.runChild(c.id);
      }
      const now = new Date();
      // (an uncertain item without a deadline is one nobody can check: a person decides, see steps/5-reconcile.ts)
      const overdueUncertain = await database.prisma.workItem.findMany({
        where: { status: WorkItemStatus.uncertain, reconcileDeadline: { not: null } },
        take: 50,
        orderBy: { reconcileDeadline: "asc" },
      });
      for (const item of overdueUncertain) {
        if (Date.now() - (this.#lastAsked.get(item.id) ?? 0) < (this.#options.reconcileIntervalMs ?? 10_000)) continue;
        this.#lastAsked.set(item.id, Date.now());
        await reconcileWorkItem(database, item, this.#options.registry.get(item.toolName), this.#options.registry, this.#options);
      }
      if (Date.now() - this.#lastOrphanReports >= (this.#options.reconcileIntervalMs ?? 10_000)) {
        this.#lastOrphanReports = Date.now();
        await reconcileOrphanReports(database, this.#options.registry);
        await cleanupLateSettled(database, { verifyDelayMs: Number(process.env.STOPLINE_VERIFY_DELAY_MS ?? 2_000), ...this.#options });
        await reverifyOrphans(database, this.#options.registry);
      }
      await resolveAnsweredUncertainties(database);
      await escalateOverdue(database, now);
    } catch (error) {
      console.error("cancellation maintenance pass failed; retrying on the next pass", error);
    } finally {
      this.#maintaining = false;
    }
  }
}

/**
 * Stops not yet finished whose run nobody live holds (at most 50): a task still being stopped, or stopped with its
 * settlement not recorded. Two reads, each through an index that holds only such tasks (the index on "stage", and
 * the partial Task_stop_unsettled_idx) — one read with the two joined by OR read every task of the history.
 */
async function readUnfinishedStops(database: Database, engineId: string, now: Date) {
  const runnable = { OR: [{ engineLeaseExpiresAt: null }, { engineLeaseExpiresAt: { lt: now } }, { engineOwner: engineId }] };
  const select = { id: true, cancelPlannedAt: true, engineOwner: true, stage: true, settledAt: true };
  const [beingStopped, unsettled] = await Promise.all([
    database.prisma.task.findMany({ where: { stage: TaskStage.cancelRequested, AND: [runnable] }, select, take: 50 }),
    database.prisma.task.findMany({ where: { cancelRequestedAt: { not: null }, settledAt: null, AND: [runnable] }, select, take: 50 }),
  ]);
  const byId = new Map([...beingStopped, ...unsettled].map((t) => [t.id, t]));
  return [...byId.values()].slice(0, 50);
}

/** Review items past their deadline are escalated (delivery channels come with the console). */
export async function escalateOverdue(database: Database, now = new Date()): Promise<string[]> {
  const overdue = await database.prisma.reviewItem.findMany({ where: { status: ReviewItemStatus.open, deadline: { lt: now } }, take: 100 });
  const escalated: string[] = [];
  for (const r of overdue) {
    const moved = await writeLedger(database, (w) =>
      casUpdate(w, {
        entity: "reviewItem",
        id: r.id,
        from: ReviewItemStatus.open,
        to: ReviewItemStatus.escalated,
        event: {
          taskId: r.taskId,
          workItemId: r.workItemId,
          actor: ENGINE_ACTOR,
          type: LedgerEvent.reviewItemEscalated,
          reason: `deadline ${r.deadline.toISOString()} passed without a decision`,
          data: { kind: r.kind },
        },
      }),
    );
    if (moved) escalated.push(r.id);
  }
  return escalated;
}

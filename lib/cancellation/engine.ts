import type { Database } from "../db/client";
import { onCommitted } from "../events/bus";
import { recoverExpiredLeases } from "../ledger/recover-expired-leases";
import { ReviewItemStatus, TaskStage, WorkItemStatus } from "../ledger/states";
import { casUpdate, writeLedger } from "../ledger/write";
import { cleanupLateSettled, executeCancellation, finishCancellation, reverifyOrphans, type EngineOptions } from "./execute-cancellation";
import { reconcileOrphanReports, reconcileWorkItem, resolveAnsweredUncertainties } from "./reconcile";
import { ENGINE_ACTOR } from "./steps";

/**
 * Runs cancellations in the background of the process that holds it (the app, or a worker process):
 * it starts as soon as a boundary is committed, and a maintenance pass resumes whatever a restart
 * interrupted (invariant 8) — tasks still `cancel_requested`, expired leases, items awaiting
 * reconciliation, and review items past their deadline. One run per task at a time in this process;
 * across processes every step is a compare-and-set, so a second run changes nothing.
 */
export class CancellationEngine {
  readonly #database: Database;
  readonly #options: EngineOptions;
  readonly #runs = new Map<string, Promise<void>>();
  #unsubscribe?: () => void;
  #timer?: NodeJS.Timeout;
  #maintaining = false;
  /** When each uncertain item was last asked about (the service is not asked more than every 10 s). */
  readonly #lastAsked = new Map<string, number>();
  readonly #lastFinished = new Map<string, number>();
  #lastOrphanReports = 0;

  constructor(database: Database, options: EngineOptions) {
    this.#database = database;
    this.#options = options;
  }

  start(maintenanceMs = Number(process.env.STOPLINE_MAINTENANCE_MS ?? 1_000)): this {
    this.#unsubscribe = onCommitted((events) => {
      for (const e of events) if (e.type === "task.cancel_requested" && e.taskId) void this.run(e.taskId);
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
  }

  /** Runs (or joins the running) cancellation of a task. */
  run(taskId: string): Promise<void> {
    const running = this.#runs.get(taskId);
    if (running) return running;
    const run = executeCancellation(this.#database, taskId, this.#options)
      .catch((error) => console.error(`cancellation of task ${taskId} failed; the maintenance pass will resume it`, error))
      .finally(() => this.#runs.delete(taskId));
    this.#runs.set(taskId, run);
    return run;
  }

  /** One maintenance pass (also called by tests). */
  async maintain(): Promise<void> {
    if (this.#maintaining) return;
    this.#maintaining = true;
    try {
      const database = this.#database;
      await recoverExpiredLeases(database);
      const pending = await database.prisma.task.findMany({ where: { stage: TaskStage.cancelRequested }, select: { id: true }, take: 50 });
      for (const t of pending) {
        if (this.#runs.has(t.id)) continue;
        const planned = await database.prisma.ledgerEvent.count({ where: { taskId: t.id, type: "cancellation.planned" } });
        if (!planned) {
          void this.run(t.id); // a boundary whose engine run never happened (the process restarted)
          continue;
        }
        // Children that settled late: reconcile, verify their resources, settle — at most every 5 s per task.
        if (Date.now() - (this.#lastFinished.get(t.id) ?? 0) < Math.min(5_000, this.#options.reconcileIntervalMs ?? 5_000)) continue;
        this.#lastFinished.set(t.id, Date.now());
        await finishCancellation(database, t.id, this.#options);
      }
      const now = new Date();
      const overdueUncertain = await database.prisma.workItem.findMany({ where: { status: WorkItemStatus.uncertain }, take: 50, orderBy: { reconcileDeadline: "asc" } });
      for (const item of overdueUncertain) {
        if (Date.now() - (this.#lastAsked.get(item.id) ?? 0) < (this.#options.reconcileIntervalMs ?? 10_000)) continue;
        this.#lastAsked.set(item.id, Date.now());
        await reconcileWorkItem(database, item, this.#options.registry.get(item.toolName), this.#options.registry);
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

/** Review items past their deadline are escalated (delivery channels come with the console). */
export async function escalateOverdue(database: Database, now = new Date()): Promise<string[]> {
  const overdue = await database.prisma.reviewItem.findMany({ where: { status: ReviewItemStatus.open, deadline: { lt: now } }, take: 100 });
  const escalated: string[] = [];
  for (const r of overdue) {
    const moved = await writeLedger(database, (w) =>
      casUpdate(w, {
        entity: "reviewItem", id: r.id, from: ReviewItemStatus.open, to: ReviewItemStatus.escalated,
        event: { taskId: r.taskId, workItemId: r.workItemId, actor: ENGINE_ACTOR, type: "review_item.escalated", reason: `deadline ${r.deadline.toISOString()} passed without a decision`, data: { kind: r.kind } },
      }),
    );
    if (moved) escalated.push(r.id);
  }
  return escalated;
}

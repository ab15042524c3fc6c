import { randomUUID } from "node:crypto";
import type { Database } from "../db/client";
import { onCommitted } from "../events/bus";
import { DEFAULT_LEASE_MS } from "../ledger/lease";
import type { ToolRegistry } from "../tools/registry";
import { ReportAndClaimQueue } from "../ledger/report-and-claim";
import type { WorkItem } from "../db/generated/sqlite/client.ts";
import { LedgerEvent } from "../ledger/events";
import { runWorkItem, type RunOptions, type RunReport } from "./run-work-item";

export interface WorkerPoolOptions {
  database: Database;
  registry: ToolRegistry;
  /** Work items run at once. */
  concurrency?: number;
  workerId?: string;
  /** How often to look for work scheduled by other processes (in-process schedules wake the pool at once). */
  pollMs?: number;
  leaseMs?: number;
  heartbeatMs?: number;
  onSettled?: (workItemId: string, report: RunReport) => void;
}

type ResolvedOptions = Required<Omit<WorkerPoolOptions, "onSettled">> & Pick<WorkerPoolOptions, "onSettled">;

/**
 * Claims queued work items of the registered tools through the lease protocol and runs them: `concurrency`
 * slots, each claiming on its own (claims skip each other's locked rows, so they run side by side and the
 * database groups their commits) and running what it claimed. An idle slot waits to be woken — by a
 * `work_item.scheduled` or `lease.expired` event (committed here, or read from another process by the live
 * view), by a sibling that just claimed something (there may be more), or by the poll. Cancellation reaches
 * running code through runWorkItem's AbortSignal.
 */
export class WorkerPool {
  readonly workerId: string;
  readonly #o: ResolvedOptions;
  readonly #running = new Map<string, Promise<void>>();
  /** The slots' reports and claims, coalesced into shared statements (report-and-claim.ts). */
  readonly #ledger: ReportAndClaimQueue;
  readonly #slots: Promise<void>[] = [];
  /** Idle slots waiting for a wake-up. */
  readonly #idle: (() => void)[] = [];
  /**
   * A claim that scanned the whole queue found nothing, and no wake-up came since (PostgreSQL). Meanwhile a report does
   * not claim with it and a slot that finished waits instead of looking: each such claim walks the queue's index for
   * nothing (bench:pg part D: ~1.5 ms of PostgreSQL's time per child stopped). New work is announced (work_item.scheduled,
   * lease.expired) and wakes the pool, which clears this; anything that becomes claimable unannounced (a kill switch
   * lifted, an item another process left after its claim lost the task's re-check) is found by the poll, as by an idle
   * pool.
   */
  #queueEmpty = false;
  /** Counts wake-ups from outside (new work, the poll): a slot that was busy claiming when one came looks again. */
  #signals = 0;
  #stopped = true;
  #timer: NodeJS.Timeout | undefined;
  #unsubscribe: (() => void) | undefined;

  constructor(options: WorkerPoolOptions) {
    const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.workerId = options.workerId ?? `pool-${randomUUID().slice(0, 8)}`;
    this.#o = {
      concurrency: 8,
      pollMs: 250,
      heartbeatMs: Math.max(200, Math.floor(leaseMs / 3)),
      ...options,
      leaseMs,
      workerId: this.workerId,
    } as ResolvedOptions;
    this.#ledger = new ReportAndClaimQueue(
      this.#o.database,
      () => this.#claimInput(),
      () => {
        this.#queueEmpty = true;
      },
    );
  }

  get running(): number {
    return this.#running.size;
  }

  start(): this {
    if (!this.#stopped) return this;
    this.#stopped = false;
    this.#unsubscribe = onCommitted((events) => {
      const newWork = events.filter((e) => e.type === LedgerEvent.workItemScheduled || e.type === LedgerEvent.leaseExpired).length;
      if (newWork) this.#signal(newWork);
    });
    this.#timer = setInterval(() => this.#signal(1), this.#o.pollMs);
    for (let i = 0; i < this.#o.concurrency; i++) this.#slots.push(this.#slot());
    return this;
  }

  /** Stops claiming and waits for the running items to end (their leases expire if the process dies instead). */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    this.#unsubscribe?.();
    this.#wake(this.#idle.length);
    // A claim already under way finishes (and its item runs) before the pool is stopped.
    await Promise.allSettled(this.#slots.splice(0));
  }

  #signal(n: number) {
    this.#signals++;
    this.#queueEmpty = false;
    this.#wake(n);
  }

  #wake(n: number) {
    for (let i = 0; i < n && this.#idle.length; i++) this.#idle.shift()!();
  }

  async #slot(): Promise<void> {
    let next: WorkItem | null = null;
    let woken = true; // a new slot looks once
    while (!this.#stopped || next) {
      const signals = this.#signals;
      let item: WorkItem | null = next;
      next = null;
      // A slot that was woken always looks; one that just finished looks unless the queue was found empty since the
      // last wake-up.
      if (!item && !this.#stopped && (woken || !this.#queueEmpty)) {
        try {
          item = await this.#ledger.claim();
        } catch (error) {
          if (!this.#stopped) console.error("worker pool: claiming failed; retrying on the next poll", error);
        }
      }
      woken = false;
      if (!item) {
        // New work announced while this claim ran may not have been visible to it: look once more.
        if (!this.#stopped && signals === this.#signals) await new Promise<void>((resolve) => this.#idle.push(resolve));
        woken = true;
        continue;
      }
      this.#queueEmpty = false;
      this.#wake(1); // there may be more: let an idle sibling look too
      // The report of this item also claims the slot's next one (one commit for both, on PostgreSQL) — unless the
      // queue was found empty since the last wake-up: then the report goes alone and the slot waits to be woken.
      await this.#run(item, (input) =>
        this.#ledger.report(
          input,
          this.#queueEmpty
            ? undefined
            : (claimed) => {
                next = claimed;
              },
        ),
      );
    }
  }

  /** What the next claim asks for; nothing once the pool is stopping (or has no tools: an empty list would mean "any"). */
  #claimInput() {
    const toolNames = this.#o.registry.names();
    return this.#stopped || !toolNames.length ? null : { workerId: this.workerId, toolNames, leaseMs: this.#o.leaseMs };
  }

  #run(item: WorkItem, complete: RunOptions["complete"]): Promise<void> {
    const tool = this.#o.registry.require(item.toolName);
    const run = runWorkItem({
      database: this.#o.database,
      tool,
      item,
      workerId: this.workerId,
      leaseMs: this.#o.leaseMs,
      heartbeatMs: this.#o.heartbeatMs,
      complete,
    })
      .then((report) => this.#o.onSettled?.(item.id, report))
      .catch((error) => console.error(`work item ${item.id} (${item.toolName}) crashed its runner`, error))
      .finally(() => this.#running.delete(item.id));
    this.#running.set(item.id, run);
    return run;
  }
}

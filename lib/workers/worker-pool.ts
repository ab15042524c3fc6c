import { randomUUID } from "node:crypto";
import type { Database } from "../db/client";
import { onCommitted } from "../events/bus";
import { claimWorkItem } from "../ledger/claim-work-item";
import { DEFAULT_LEASE_MS } from "../ledger/lease";
import type { ToolRegistry } from "../tools/registry";
import { runWorkItem, type RunReport } from "./run-work-item";
import { LedgerEvent } from "../ledger/events";

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
 * Claims queued work items of the registered tools through the lease protocol and runs them. In the app
 * process (the embedded default) it wakes on in-process commit notifications; in a separate process it
 * polls. Cancellation reaches running code through runWorkItem's AbortSignal.
 */
export class WorkerPool {
  readonly workerId: string;
  readonly #o: ResolvedOptions;
  readonly #running = new Map<string, Promise<void>>();
  #stopped = true;
  #timer: NodeJS.Timeout | undefined;
  #unsubscribe: (() => void) | undefined;
  #filling: Promise<void> | null = null;
  #again = false;

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
  }

  get running(): number {
    return this.#running.size;
  }

  start(): this {
    if (!this.#stopped) return this;
    this.#stopped = false;
    this.#unsubscribe = onCommitted((events) => {
      if (events.some((e) => e.type === LedgerEvent.workItemScheduled || e.type === LedgerEvent.leaseExpired)) void this.#fill();
    });
    this.#timer = setInterval(() => void this.#fill(), this.#o.pollMs);
    void this.#fill();
    return this;
  }

  /** Stops claiming and waits for the running items to end (their leases expire if the process dies instead). */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    this.#unsubscribe?.();
    await this.#filling; // a claim already under way finishes (and its item runs) before the pool is stopped
    await Promise.allSettled([...this.#running.values()]);
  }

  /** Claims until the pool is full or nothing is queued; one fill at a time, a wake-up during it repeats it. */
  #fill(): Promise<void> {
    if (this.#filling) {
      this.#again = true;
      return this.#filling;
    }
    this.#filling = this.#fillLoop().finally(() => {
      this.#filling = null;
    });
    return this.#filling;
  }

  async #fillLoop(): Promise<void> {
    try {
      do {
        this.#again = false;
        // No tools, nothing to claim (an empty filter would mean "any tool").
        while (!this.#stopped && this.#running.size < this.#o.concurrency && this.#o.registry.names().length > 0) {
          const item = await claimWorkItem(this.#o.database, { workerId: this.workerId, toolNames: this.#o.registry.names(), leaseMs: this.#o.leaseMs });
          if (!item) break;
          const tool = this.#o.registry.require(item.toolName);
          const run = runWorkItem({ database: this.#o.database, tool, item, workerId: this.workerId, leaseMs: this.#o.leaseMs, heartbeatMs: this.#o.heartbeatMs })
            .then((report) => this.#o.onSettled?.(item.id, report))
            .catch((error) => console.error(`work item ${item.id} (${item.toolName}) crashed its runner`, error))
            .finally(() => {
              this.#running.delete(item.id);
              void this.#fill();
            });
          this.#running.set(item.id, run);
        }
      } while (this.#again && !this.#stopped);
    } catch (error) {
      if (!this.#stopped) console.error("worker pool: claiming failed; retrying on the next poll", error);
    }
  }
}

import type { Database } from "../db/client";
import { onCommitted } from "../events/bus";
import type { ToolRegistry } from "../tools/registry";
import { attemptDelivery, deliveryOptionsFromEnv, dueDeliveries, nextDueAt, type DeliveryOptions } from "./deliver";
import { enqueueEscalations } from "./enqueue";

export interface DelivererOptions extends Partial<DeliveryOptions> {
  /** Fallback poll of the ledger and of due retries (default 1 s): commits in other processes are seen by it. */
  pollMs?: number;
  /** Deliveries in flight at once (one slow receiver does not hold up the others). */
  concurrency?: number;
  publicUrl?: string;
  registry?: ToolRegistry;
}

/**
 * The escalation deliverer of one process: reads the ledger for escalations and close-outs (enqueue.ts),
 * sends what is due (deliver.ts), and sleeps until the next commit of a review-item event, the next due
 * retry or the poll interval, whichever comes first. Several processes may run one on the same database.
 */
export class EscalationDeliverer {
  readonly #database: Database;
  readonly #options: DeliveryOptions;
  readonly #pollMs: number;
  readonly #concurrency: number;
  readonly #publicUrl?: string;
  readonly #registry?: ToolRegistry;
  readonly #inFlight = new Map<string, Promise<void>>();
  #timer: NodeJS.Timeout | null = null;
  #timerAt = Infinity;
  #running = false;
  #again = false;
  #stopped = true;
  #unsubscribe: (() => void) | null = null;
  #passDone: Promise<void> = Promise.resolve();

  constructor(database: Database, options: DelivererOptions = {}) {
    this.#database = database;
    const { pollMs, concurrency, publicUrl, registry, ...delivery } = options;
    this.#options = deliveryOptionsFromEnv(delivery);
    this.#pollMs = pollMs ?? 1_000;
    this.#concurrency = concurrency ?? 8;
    this.#publicUrl = publicUrl;
    this.#registry = registry;
  }

  start(): this {
    if (!this.#stopped) return this;
    this.#stopped = false;
    this.#unsubscribe = onCommitted((events) => {
      if (events.some((e) => e.type.startsWith("review_item."))) this.wake();
    });
    this.wake();
    return this;
  }

  /** Runs a pass soon (coalesced with one already running). */
  wake(): void {
    this.#schedule(0);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unsubscribe?.();
    this.#unsubscribe = null;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#timerAt = Infinity;
    await this.#passDone;
    await Promise.allSettled([...this.#inFlight.values()]);
  }

  /** One pass: enqueue from the ledger, launch every due delivery (up to the concurrency). Exposed for tests and tools. */
  async pass(): Promise<void> {
    if (this.#running) {
      this.#again = true;
      return this.#passDone;
    }
    this.#running = true;
    let finish!: () => void;
    this.#passDone = new Promise((resolve) => (finish = resolve));
    try {
      do {
        this.#again = false;
        await enqueueEscalations(this.#database, { publicUrl: this.#publicUrl, registry: this.#registry });
        const room = this.#concurrency - this.#inFlight.size;
        if (room <= 0) break;
        const due = await dueDeliveries(this.#database, new Date(), room + this.#inFlight.size);
        for (const d of due) {
          if (this.#inFlight.has(d.id) || this.#inFlight.size >= this.#concurrency) continue;
          const sending = attemptDelivery(this.#database, d, this.#options)
            .then((result) => {
              // A finished escalation may release its waiting close-out; a retry is due after its backoff.
              if (result === "delivered" || result === "failed" || result === "retry") this.wake();
            })
            .catch((error) => console.error(`escalation delivery ${d.id} failed unexpectedly; retried on a later pass`, error))
            .finally(() => this.#inFlight.delete(d.id));
          this.#inFlight.set(d.id, sending);
        }
      } while (this.#again && !this.#stopped);
      const next = await nextDueAt(this.#database);
      if (next) this.#schedule(Math.max(0, next.getTime() - Date.now()));
    } catch (error) {
      console.error("escalation pass failed; retrying on the next poll", error);
    } finally {
      this.#running = false;
      finish();
      this.#schedule(this.#pollMs);
    }
  }

  /** Arms the timer for `ms` from now unless an earlier one is already armed. */
  #schedule(ms: number): void {
    if (this.#stopped) return;
    const at = Date.now() + ms;
    if (this.#timer && this.#timerAt <= at) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#timerAt = Infinity;
      void this.pass();
    }, ms);
    this.#timer.unref?.();
  }
}

/**
 * Starts escalation delivery for this process (call once, next to the cancellation engine; stop() on
 * shutdown). Options default from the environment: STOPLINE_ESCALATION_MAX_ATTEMPTS (5),
 * STOPLINE_ESCALATION_BACKOFF_MS (1000, doubled per attempt), STOPLINE_ESCALATION_TIMEOUT_MS (10000),
 * STOPLINE_PUBLIC_URL (links in messages).
 */
export function startEscalationDeliveries(database: Database, options: DelivererOptions = {}): EscalationDeliverer {
  return new EscalationDeliverer(database, options).start();
}

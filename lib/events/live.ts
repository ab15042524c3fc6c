import { randomUUID } from "node:crypto";
import pg from "pg";
import { onEngine, type Database } from "../db/client";
import type { PgDirect } from "../db/pg";
import { AppError, ErrorCode } from "../errors";
import { onCommitted, publishRemote, type CommittedEvent } from "./bus";
import {
  comparePositions,
  headerOf,
  headPosition,
  otherDatabasesTransactions,
  readEventHeadersAfter,
  readEventsAfter,
  type EventPosition,
  type LedgerEventRow,
  type PositionedEvent,
} from "./read-events";

/**
 * One live view of the ledger per process (and database). It reads new events ONCE — woken by this process's
 * own commits, by NOTIFY from other processes on PostgreSQL, or by a slow poll — and fans them out in memory:
 * to every SSE subscriber that may see them (per-principal filter), and, for events another process committed,
 * to this process's bus (so a Stop recorded by one app instance aborts a child running in a worker process at
 * once, not at its next heartbeat). The cost of an event is one read per process plus one write per socket.
 *
 * Order and exactly-once come from read-events.ts (positions); a new subscriber replays its backlog from the
 * table up to where the live view stands, buffering live frames meanwhile, then switches to live — no gap,
 * no duplicate.
 */

const CHANNEL = "stopline_ledger";
const NOTIFY_EVERY_MS = 5;
/** How long one transaction may hold the live view's reads back before it looks whose it is (read-events.ts). */
const OTHER_DATABASES_LOOKUP_MS = 20;
const encoder = new TextEncoder();

export interface StreamFilter {
  /** Only this task's events. */
  taskId?: string;
  /** Owner-scoped principals (a `user`) see only their own tasks' events (and no task-less ones). */
  ownerId?: string;
}

export interface SubscribeOptions extends StreamFilter {
  /** Replay from here (exclusive); "now" starts at the present. */
  after: EventPosition | "now";
  /** Who is asking, for the per-principal cap. */
  principalKey: string;
  signal: AbortSignal;
}

export interface LiveLimits {
  perPrincipal: number;
  total: number;
}

export const liveLimits = (): LiveLimits => ({
  perPrincipal: Number(process.env.STOPLINE_SSE_MAX_PER_PRINCIPAL ?? 32),
  total: Number(process.env.STOPLINE_SSE_MAX_TOTAL ?? 5_000),
});

/** A stream whose reader falls this far behind is closed; its client resumes from Last-Event-ID. */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
const STREAM_HIGH_WATER = 64 * 1024;

/**
 * Where a subscriber's frames go: a web ReadableStream (a route handler's Response) or a Node response written
 * directly (the server's event-stream lane, lib/events/direct-lane.ts — one write per frame, the cheapest there is).
 */
export interface EventSink {
  write(frame: Uint8Array): void;
  /** Bytes written but not yet taken by the client (a slow reader's backlog). */
  backlog(): number;
  end(): void;
}

interface Subscriber {
  filter: StreamFilter;
  principalKey: string;
  /** null once live; frames that arrived while the backlog was being replayed. */
  buffer: { position: EventPosition; frame: Uint8Array }[] | null;
  /** Everything up to here was sent (or preceded the resume point): a frame at or before it is never sent again. */
  replayedTo: EventPosition;
  sink: EventSink;
  close(): void;
}

export function frameOf(event: LedgerEventRow): Uint8Array {
  return encoder.encode(`id: ${event.seq}\nevent: ledger\ndata: ${JSON.stringify(event)}\n\n`);
}

const matches = (filter: StreamFilter, e: PositionedEvent) =>
  (!filter.taskId || e.event.taskId === filter.taskId) && (!filter.ownerId || (e.event.taskId !== null && e.ownerId === filter.ownerId));

export class LiveLedger {
  readonly #database: Database;
  /** PostgreSQL's pool: peers are told of commits through NOTIFY and heard through LISTEN. Null on SQLite: peers only poll. */
  readonly #pg: PgDirect | null;
  readonly #id = randomUUID();
  readonly #subscribers = new Set<Subscriber>();
  readonly #localSeqs = new Set<number>();
  #position: EventPosition | null = null;
  readonly ready: Promise<void>;
  #pumping: Promise<void> | null = null;
  #again = false;
  #heldRetry: NodeJS.Timeout | null = null;
  #heldDelay = 2;
  /** Other databases' transactions in progress when last looked up (PostgreSQL); null: not looked up yet. */
  #otherDatabases: string[] | null = null;
  /** The transaction holding this view's reads back, and since when. */
  #holder: { xid: string; since: number } | null = null;
  #poll: NodeJS.Timeout | null = null;
  #unsubscribe: (() => void) | null = null;
  #listener: pg.Client | null = null;
  #notifying = false;
  #notifyAgain = false;
  #notifyCooldown: NodeJS.Timeout | null = null;
  #stopped = false;

  constructor(database: Database, options: { pollMs?: number } = {}) {
    this.#database = database;
    const pool = onEngine<PgDirect | null>(database, { postgres: (pg) => pg, sqlite: () => null });
    this.#pg = pool;
    const pollMs = options.pollMs ?? Number(process.env.STOPLINE_LIVE_POLL_MS ?? (pool ? 1_000 : 200));
    this.#unsubscribe = onCommitted((events) => this.#onLocal(events));
    this.ready = (async () => {
      this.#position = await headPosition(database);
      if (pool) await this.#listen();
      if (this.#stopped) return;
      this.#poll = setInterval(() => this.wake(), pollMs);
      this.#poll.unref();
      this.wake();
    })();
    this.ready.catch((error) => console.error("live view: could not start", error));
  }

  get subscriberCount(): number {
    return this.#subscribers.size;
  }

  /** Reads whatever is new (one pump at a time; a wake-up during a pump runs exactly one more). */
  wake(): void {
    if (this.#stopped || this.#position === null) return;
    if (this.#pumping) {
      this.#again = true;
      return;
    }
    this.#pumping = this.#pump()
      .catch((error) => console.error("live view: reading the ledger failed; retrying on the next wake-up", error))
      .finally(() => {
        this.#pumping = null;
        if (this.#again) {
          this.#again = false;
          this.wake();
        }
      });
  }

  async #pump(): Promise<void> {
    for (;;) {
      const from = this.#position!;
      // Whole events only for streams; nobody to stream to: only what the bus needs (readEventHeadersAfter).
      if (this.#pg && !this.#otherDatabases) this.#otherDatabases = await otherDatabasesTransactions(this.#pg);
      const otherDatabases = this.#otherDatabases ?? undefined;
      const whole = this.#subscribers.size > 0 ? await readEventsAfter(this.#database, from, { limit: 1_000, otherDatabases }) : null;
      const page = whole
        ? { headers: whole.events.map(headerOf), held: whole.held, heldBy: whole.heldBy }
        : await readEventHeadersAfter(this.#database, from, { limit: 1_000, otherDatabases });
      // A stream that attached during a headers-only read started at `from` and needs those events whole: read again.
      if (!whole && this.#subscribers.size > 0) continue;
      const remote: CommittedEvent[] = [];
      for (const [i, { position, ...event }] of page.headers.entries()) {
        this.#position = position;
        if (this.#localSeqs.delete(event.seq) === false) remote.push(event);
        if (whole) this.#deliver(whole.events[i]);
      }
      publishRemote(remote);
      if (page.held) await this.#heldBy(page.heldBy);
      else {
        this.#heldDelay = 2;
        this.#holder = null;
      }
      if (page.headers.length < 1_000) return;
    }
  }

  /**
   * Committed events wait behind an older transaction still running: look again shortly (backing off). The reads pass
   * the other databases' transactions this view found (read-events.ts); when one transaction has held them back for
   * OTHER_DATABASES_LOOKUP_MS, the view looks at the server's sessions again — it may be another database's, begun since.
   */
  async #heldBy(xid: string | null) {
    const now = Date.now();
    if (this.#pg && xid && this.#holder?.xid === xid && now - this.#holder.since >= OTHER_DATABASES_LOOKUP_MS) {
      this.#otherDatabases = await otherDatabasesTransactions(this.#pg);
      this.#holder = null;
      this.#again = true; // read again at once with what was found
      return;
    }
    if (this.#holder?.xid !== xid) this.#holder = xid ? { xid, since: now } : null;
    this.#retryHeld();
  }

  #retryHeld() {
    if (this.#heldRetry) return;
    this.#heldRetry = setTimeout(() => {
      this.#heldRetry = null;
      this.wake();
    }, this.#heldDelay);
    this.#heldDelay = Math.min(this.#heldDelay * 2, 200);
  }

  #deliver(e: PositionedEvent) {
    let frame: Uint8Array | null = null;
    for (const s of this.#subscribers) {
      if (!matches(s.filter, e)) continue;
      frame ??= frameOf(e.event);
      if (s.buffer) s.buffer.push({ position: e.position, frame });
      // A subscriber that resumed ahead of this live view (it had not read that far yet) skips what it has.
      else if (comparePositions(e.position, s.replayedTo) > 0) this.#send(s, frame);
    }
  }

  #send(s: Subscriber, frame: Uint8Array) {
    try {
      if (s.sink.backlog() > MAX_BUFFERED_BYTES) {
        s.sink.write(
          encoder.encode(`event: error\ndata: ${JSON.stringify({ message: "this stream fell too far behind; reconnect with Last-Event-ID to resume" })}\n\n`),
        );
        s.close();
        return;
      }
      s.sink.write(frame);
    } catch {
      s.close(); // the client went away
    }
  }

  #onLocal(events: CommittedEvent[]) {
    if (this.#stopped || events[0]?.origin !== "local") return;
    for (const e of events) this.#localSeqs.add(e.seq);
    if (this.#localSeqs.size > 100_000) this.#localSeqs.clear(); // only ever a duplicate announcement, never a lost event
    // This process's own commits matter here only to its subscribers; without any, the next wake-up (a peer's
    // NOTIFY, the poll) reads past them.
    if (this.#subscribers.size) this.wake();
    if (this.#pg) this.#notifyPeers();
  }

  /**
   * Tells other processes that there is something to read. Coalesced: one NOTIFY in flight and at most one per
   * NOTIFY_EVERY_MS (each is a commit of its own, and PostgreSQL serialises notifying commits); the first of
   * a quiet spell goes out at once, so a lone Stop reaches other processes without delay.
   */
  #notifyPeers() {
    if (this.#notifying || this.#notifyCooldown) {
      this.#notifyAgain = true;
      return;
    }
    this.#notifying = true;
    this.#pg!.query(`SELECT pg_notify($1, $2)`, [CHANNEL, this.#id], "stopline_notify")
      .catch((error) => console.error("live view: NOTIFY failed (other processes will see the events on their next poll)", error.message))
      .finally(() => {
        this.#notifying = false;
        this.#notifyCooldown = setTimeout(() => {
          this.#notifyCooldown = null;
          if (this.#notifyAgain && !this.#stopped) {
            this.#notifyAgain = false;
            this.#notifyPeers();
          }
        }, NOTIFY_EVERY_MS);
      });
  }

  /** A dedicated connection LISTENs (a pooled one would miss notifications between checkouts); reconnects. */
  async #listen(): Promise<void> {
    if (this.#stopped) return;
    const client = new pg.Client({ connectionString: this.#database.target.url, application_name: "stopline-live" });
    const reconnect = () => {
      if (this.#listener !== client) return;
      this.#listener = null;
      client.end().catch(() => {});
      if (!this.#stopped) setTimeout(() => void this.#listen().catch(() => {}), 1_000).unref();
    };
    client.on("error", reconnect);
    client.on("end", reconnect);
    client.on("notification", (n) => {
      if (n.payload !== this.#id) this.wake();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
      this.#listener = client;
      this.wake(); // whatever was committed while this connection was away
    } catch (error) {
      console.error("live view: LISTEN failed; polling until it works", (error as Error).message);
      client.end().catch(() => {});
      if (!this.#stopped) setTimeout(() => void this.#listen().catch(() => {}), 1_000).unref();
    }
  }

  /**
   * A server-sent event stream: the backlog after `after` (read from the table), then live events, each
   * exactly once and in ledger order, filtered for the principal. Refused with 429 past the caps.
   */
  async subscribe(options: SubscribeOptions): Promise<ReadableStream<Uint8Array>> {
    await this.ready;
    this.admit(options);
    let handle: { close(): void } | undefined;
    return new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          handle = this.attach(options, {
            write: (frame) => controller.enqueue(frame),
            backlog: () => Math.max(0, STREAM_HIGH_WATER - (controller.desiredSize ?? 0)),
            end: () => {
              try {
                controller.close();
              } catch {
                /* already closed by the client */
              }
            },
          });
        },
        cancel: () => handle?.close(),
      },
      { highWaterMark: STREAM_HIGH_WATER, size: (chunk) => chunk.byteLength },
    );
  }

  /**
   * Refuses a new stream past the caps (429 with Retry-After). Synchronous, after `ready`: a caller that attaches
   * right after it (no await between) holds its place, so streams opened at once cannot all pass the same count.
   */
  admit(options: Pick<SubscribeOptions, "principalKey">): void {
    const limits = liveLimits();
    if (this.#subscribers.size >= limits.total) {
      throw new AppError(ErrorCode.tooManyRequests, `this server has ${this.#subscribers.size} open event streams, its limit; try again shortly`, {
        limit: limits.total,
        retryAfterSeconds: 5,
      });
    }
    let mine = 0;
    for (const s of this.#subscribers) if (s.principalKey === options.principalKey) mine++;
    if (mine >= limits.perPrincipal) {
      throw new AppError(
        ErrorCode.tooManyRequests,
        `you already have ${mine} open event streams (the limit is ${limits.perPrincipal}); close one, or share one stream per tab`,
        {
          limit: limits.perPrincipal,
          retryAfterSeconds: 10,
        },
      );
    }
  }

  /**
   * Starts a subscriber on `sink` (after `admit`): the first frames are written at once, then its backlog is
   * replayed while live frames are buffered. Ends when `close()` is called or `options.signal` aborts.
   */
  attach(options: SubscribeOptions, sink: EventSink): { close(): void } {
    const heartbeatMs = Number(process.env.STOPLINE_SSE_HEARTBEAT_MS ?? 15_000);
    const startAt = options.after === "now" ? this.#position! : options.after;
    let heartbeat: NodeJS.Timeout | undefined;
    const subscriber: Subscriber = {
      filter: { taskId: options.taskId, ownerId: options.ownerId },
      principalKey: options.principalKey,
      sink,
      replayedTo: startAt,
      // Behind the live view: replay the backlog first, buffering what arrives live meanwhile.
      buffer: comparePositions(startAt, this.#position!) < 0 ? [] : null,
      close: () => {
        if (!this.#subscribers.delete(subscriber)) return;
        clearInterval(heartbeat);
        sink.end();
      },
    };
    this.#subscribers.add(subscriber);
    sink.write(encoder.encode(`retry: 1000\n: connected after ${startAt.seq}\n\n`));
    heartbeat = setInterval(() => this.#send(subscriber, encoder.encode(`: heartbeat ${new Date().toISOString()}\n\n`)), heartbeatMs);
    options.signal.addEventListener("abort", () => subscriber.close(), { once: true });
    if (subscriber.buffer) void this.#replay(subscriber, startAt, this.#position!);
    return { close: subscriber.close };
  }

  /** Sends a subscriber its backlog (after `from`, up to `to` where the live view stood), then its buffer. */
  async #replay(s: Subscriber, from: EventPosition, to: EventPosition) {
    try {
      let cursor = from;
      for (;;) {
        const { events } = await readEventsAfter(this.#database, cursor, { taskId: s.filter.taskId, ownerId: s.filter.ownerId, upTo: to, limit: 500 });
        if (!this.#subscribers.has(s)) return;
        for (const e of events) {
          if (matches(s.filter, e)) this.#send(s, frameOf(e.event));
          cursor = e.position;
        }
        if (events.length < 500) break;
      }
      s.replayedTo = to;
      const buffered = s.buffer ?? [];
      s.buffer = null;
      for (const b of buffered) if (comparePositions(b.position, s.replayedTo) > 0) this.#send(s, b.frame);
    } catch (error) {
      console.error("live view: replaying a stream's backlog failed", error);
      try {
        s.sink.write(encoder.encode(`event: error\ndata: ${JSON.stringify({ message: "reading the ledger failed; reconnect to resume" })}\n\n`));
      } catch {
        /* closed */
      }
      s.close();
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unsubscribe?.();
    if (this.#poll) clearInterval(this.#poll);
    if (this.#heldRetry) clearTimeout(this.#heldRetry);
    if (this.#notifyCooldown) clearTimeout(this.#notifyCooldown);
    for (const s of [...this.#subscribers]) s.close();
    const listener = this.#listener;
    this.#listener = null;
    await listener?.end().catch(() => {});
    await this.#pumping;
  }
}

const globalForLive = globalThis as unknown as { stoplineLive?: Map<Database, LiveLedger> };

/** This process's live view of `database` (started on first use; stopped when the database closes). */
export function liveLedger(database: Database): LiveLedger {
  const views = (globalForLive.stoplineLive ??= new Map());
  let view = views.get(database);
  if (!view) {
    const started = new LiveLedger(database);
    views.set(database, started);
    database.onClose(async () => {
      views.delete(database);
      await started.stop();
    });
    view = started;
  }
  return view;
}

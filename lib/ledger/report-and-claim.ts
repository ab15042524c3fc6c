import { onEngine, type Database } from "../db/client";
import { sendAgainIfTransient, type PgDirect } from "../db/pg";
import type { WorkItem } from "../db/generated/sqlite/client.ts";
import { claimWorkItem, type ClaimInput } from "./claim-work-item";
import { completeWorkItem } from "./complete-work-item";
import { completionFields, reportRefusal, type CompleteInput } from "./completion-rules";
import { DEFAULT_LEASE_MS } from "./lease";
import { reportAndClaimOnPg, type PgReport, type QueuePosition, type ReportedItem } from "./sql/report-and-claim";

/**
 * Statements in flight at once per queue: writes that arrive while one is in flight (slots whose items take
 * different times) need not wait for it. Splitting one batch into two concurrent statements on purpose was
 * measured slower (bench:pg part A: 3,600–4,300/s against 4,500–5,200/s): they contend for the queue's head.
 */
const MAX_IN_FLIGHT = 2;
/** Writes per statement at most (a statement's arrays stay small; the rest waits for the next one). */
const MAX_BATCH = 64;
/** Sends of one batch when PostgreSQL aborts it as a deadlock victim or a serialization failure. */
const TRANSIENT_ATTEMPTS = 3;

/** How long a claim may start from the remembered head before it scans the whole queue again. */
const FULL_SCAN_EVERY_MS = 250;

/**
 * Where this queue's claims start their scan. A claim moves an item out of the queue's partial index only in the
 * new row version: the old entry stays until VACUUM, so a scan from the index's start walks over every item claimed
 * since (measured: half of the database's time in a 10,000-item run went to that walk). The oldest item a claim
 * took is remembered, and the next claims start there. Anything that becomes claimable behind it (an expired lease
 * put back, an item committed late with an older creation time, one another process skipped while it was locked)
 * is found by a scan from the start: every FULL_SCAN_EVERY_MS, and whenever a claim from the head found less than
 * it asked for. The head only chooses where to look; every guard of the claim is the same either way.
 */
class QueueHead {
  #position: QueuePosition | null = null;
  #fullScanAt = 0;

  /** Where the next claim starts (null: from the start). */
  from(): QueuePosition | null {
    return this.#position && performance.now() - this.#fullScanAt < FULL_SCAN_EVERY_MS ? this.#position : null;
  }

  /** What a claim that started at `from` found: `claimed` of `wanted`, oldest first. */
  seen(from: QueuePosition | null, wanted: number, claimed: WorkItem[]) {
    if (!from) this.#fullScanAt = performance.now();
    const oldest = claimed[0];
    if (claimed.length < wanted)
      this.#position = null; // the queue may hold older items: look from the start next
    else if (oldest) this.#position = { createdAt: oldest.createdAt, id: oldest.id };
  }
}

type Pending =
  | {
      kind: "report";
      input: CompleteInput;
      report: PgReport;
      wantsNext: boolean;
      onClaimed: (item: WorkItem) => void;
      resolve: (item: ReportedItem) => void;
      reject: (error: unknown) => void;
    }
  | { kind: "claim"; resolve: (item: WorkItem | null) => void; reject: (error: unknown) => void };

/**
 * The ledger writes of one worker pool's slots — each slot's report of how its item ended, and its claim of the
 * next one — coalesced. On PostgreSQL whatever the slots asked for while the previous statement was in flight goes
 * out as ONE statement (sql/report-and-claim.ts): a report and the claim it frees a slot for share a
 * commit, and under load so do the writes of several slots, so the statement's fixed cost (executor start-up, the
 * commit's WAL flush, the round trip) is paid once for all of them. Nothing waits for a batch to fill: an idle
 * queue sends a lone write on the next turn of the event loop. Each write keeps its own guard and its own event;
 * only the transaction is shared. On SQLite each write is its own transaction, as before (one connection, one
 * writer: nothing to coalesce across).
 */
export class ReportAndClaimQueue {
  readonly #database: Database;
  /** PostgreSQL's pool, where writes are coalesced; null on SQLite (each write its own transaction). */
  readonly #pg: PgDirect | null;
  /** What a claim asks for now; null when the pool is stopping (or serves no tool): then nothing is claimed. */
  readonly #claimInput: () => ClaimInput | null;
  readonly #pending: Pending[] = [];
  readonly #head = new QueueHead();
  /** Called when a claim that scanned the whole queue found no candidate at all (PostgreSQL; SQLite does not tell). */
  readonly #onEmpty: () => void;
  #inFlight = 0;
  #scheduled = false;

  constructor(database: Database, claimInput: () => ClaimInput | null, onEmpty: () => void = () => {}) {
    this.#database = database;
    this.#pg = onEngine(database, { postgres: (pg) => pg, sqlite: () => null });
    this.#claimInput = claimInput;
    this.#onEmpty = onEmpty;
  }

  /**
   * A lease holder's report; with `next`, the slot's next item is claimed in the same statement and handed to
   * `onClaimed` before a refused report is explained (and thrown), so that a claimed item is never dropped.
   */
  report(input: CompleteInput, next?: (item: WorkItem) => void): Promise<ReportedItem> {
    if (!this.#pg) return completeWorkItem(this.#database, input);
    const early = reportRefusal(input);
    if (early) return Promise.reject(early);
    const { result, partialResult, partialComplete, error } = completionFields(input, new Date());
    return new Promise((resolve, reject) => {
      const report = { input, fields: { result, partialResult, partialComplete, error } };
      this.#enqueue({ kind: "report", input, report, wantsNext: !!next, onClaimed: next ?? (() => {}), resolve, reject });
    });
  }

  /** The oldest claimable queued item of the pool's tools, or null. */
  claim(): Promise<WorkItem | null> {
    const input = this.#claimInput();
    if (!input) return Promise.resolve(null);
    if (!this.#pg) return claimWorkItem(this.#database, input);
    return new Promise((resolve, reject) => this.#enqueue({ kind: "claim", resolve, reject }));
  }

  #enqueue(p: Pending) {
    this.#pending.push(p);
    this.#schedule();
  }

  // Sent on the next turn of the event loop, so that the writes of slots woken by the same answer travel together.
  #schedule() {
    if (this.#scheduled || this.#inFlight >= MAX_IN_FLIGHT || !this.#pending.length) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      void this.#send();
    });
  }

  async #send() {
    const batch = this.#pending.splice(0, MAX_BATCH);
    if (!batch.length) return;
    this.#inFlight++;
    this.#schedule(); // the rest, if the batch was full
    try {
      const claimInput = this.#claimInput();
      const wanted = claimInput ? batch.filter((p) => p.kind === "claim" || p.wantsNext).length : 0;
      const reports = batch.flatMap((p) => (p.kind === "report" ? [p.report] : []));
      let answer;
      const from = this.#head.from();
      const claims =
        wanted && claimInput
          ? { workerId: claimInput.workerId, toolNames: claimInput.toolNames, leaseMs: claimInput.leaseMs ?? DEFAULT_LEASE_MS, count: wanted, from }
          : null;
      try {
        // PostgreSQL may abort the statement to break a deadlock (its rows are locked in no fixed order) or a
        // serialization conflict: nothing of it committed, so it is sent again rather than the reports lost.
        answer = await sendAgainIfTransient(() => reportAndClaimOnPg(this.#pg!, reports, claims), TRANSIENT_ATTEMPTS);
      } catch (error) {
        // One statement: nothing of it committed. Every write of the batch fails as it would have alone.
        for (const p of batch) p.reject(error);
        return;
      }
      if (wanted) this.#head.seen(from, wanted, answer.claimed);
      if (wanted && !from && !answer.candidates) this.#onEmpty();
      const claimed = [...answer.claimed];
      for (const p of batch) {
        if (p.kind === "claim") {
          p.resolve(claimed.shift() ?? null);
          continue;
        }
        const next = p.wantsNext ? claimed.shift() : undefined;
        if (next) p.onClaimed(next);
        const done = answer.done.get(p.input.workItemId);
        // A report the guarded statement refused is explained (and a stale token recorded) by the slow path.
        if (done) p.resolve(done);
        else completeWorkItem(this.#database, p.input).then(p.resolve, p.reject);
      }
    } finally {
      this.#inFlight--;
      this.#schedule();
    }
  }
}

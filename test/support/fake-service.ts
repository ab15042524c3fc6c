/**
 * An in-memory external service for cancellation tests: an order/CRM operation API (accept now, apply
 * later), long-running remote jobs, a CRM record store that other staff also edit, and a lock service.
 * It behaves like a real service (idempotency keys, asynchronous application, cancellation races) and
 * keeps a WITNESS LOG of what it actually did — independent of what Stopline's ledger says — so a test can
 * compare the two: "the ledger says cancelled; did the service really never create the record?"
 *
 * Fault switches (`faults`) make it misbehave the ways real services do:
 * - cancelUnavailable — every cancel endpoint answers 503 (nothing is cancelled);
 * - acceptThenTimeout — an accepted operation's response never reaches the caller (it still applies);
 * - ignoreCancellation — cancel is acknowledged but ignored: the job or operation carries on;
 * - neverReleaseLock — release requests are acknowledged but the lock stays held.
 *
 * Nothing here knows about Stopline; tools built on it (fake-tools.ts) use the real ToolDefinition contract.
 */

export type WitnessKind =
  // operations (asynchronous external actions: create a CRM record, place an order)
  | "operation.accepted"
  | "operation.duplicate_submit"
  | "operation.applied"
  | "operation.cancel_requested"
  | "operation.cancelled"
  | "operation.cancel_ignored"
  | "operation.inspected"
  // records (what an operation produced; other staff edit them too)
  | "record.created"
  | "record.edited"
  | "record.archived"
  | "record.archive_refused"
  // remote jobs (an export, a background model response)
  | "job.started"
  | "job.duplicate_start"
  | "job.step"
  | "job.finished"
  | "job.cancel_requested"
  | "job.cancelled"
  | "job.cancel_ignored"
  | "job.inspected"
  // locks
  | "lock.acquired"
  | "lock.released"
  | "lock.release_ignored"
  | "lock.release_noop"
  | "lock.queried"
  // work a local tool did against the service (a report's rows)
  | "work.started"
  | "work.step"
  | "work.stopped"
  | "work.finished"
  // a fault answered instead of the service
  | "endpoint.unavailable";

export interface WitnessEntry {
  seq: number;
  /** ms since epoch */
  at: number;
  kind: WitnessKind;
  /** Who asked: "tool:<toolCallId>", "stopline:cancel", "staff:bob" … */
  by: string;
  /** The operation, record, job or lock it concerns. */
  subject: string;
  detail: Record<string, unknown>;
}

export interface Faults {
  cancelUnavailable: boolean;
  acceptThenTimeout: boolean;
  ignoreCancellation: boolean;
  neverReleaseLock: boolean;
}

export class ServiceUnavailableError extends Error {
  override readonly name = "ServiceUnavailableError";
  readonly status = 503;
}
export class ServiceTimeoutError extends Error {
  override readonly name = "ServiceTimeoutError";
}
export class LockBusyError extends Error {
  override readonly name = "LockBusyError";
}

export type OperationStatus = "accepted" | "applied" | "cancelled";
export interface Operation {
  id: string;
  idempotencyKey: string;
  kind: string;
  payload: unknown;
  status: OperationStatus;
  /** The record the operation created, and the version it produced (not the record's current version). */
  recordId: string | null;
  producedVersion: number | null;
}

export interface ServiceRecord {
  id: string;
  kind: string;
  version: number;
  data: Record<string, unknown>;
  archived: boolean;
  createdBy: string;
}

export type JobStatus = "running" | "finished" | "cancelled";
export interface Job {
  id: string;
  key: string;
  status: JobStatus;
  steps: number;
  stepsDone: number;
  result: unknown;
}

export type ArchiveResult = { status: "archived" } | { status: "conflict"; currentVersion: number } | { status: "not_found" };

export interface FakeServiceOptions {
  /** When an accepted operation applies: after this many ms, or never on its own (null: the test calls applyOperation). */
  applyAfterMs?: number | null;
}

export class FakeService {
  readonly faults: Faults = { cancelUnavailable: false, acceptThenTimeout: false, ignoreCancellation: false, neverReleaseLock: false };
  applyAfterMs: number | null;
  readonly #witness: WitnessEntry[] = [];
  readonly #operations = new Map<string, Operation>();
  readonly #operationByKey = new Map<string, string>();
  readonly #records = new Map<string, ServiceRecord>();
  readonly #jobs = new Map<string, Job>();
  readonly #jobByKey = new Map<string, string>();
  readonly #locks = new Map<string, { holder: string; since: number }>();
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #waiters = new Set<() => void>();
  #ids = 0;

  constructor(options: FakeServiceOptions = {}) {
    this.applyAfterMs = options.applyAfterMs === undefined ? 0 : options.applyAfterMs;
  }

  // ---- the witness log -------------------------------------------------------------------------

  /** Everything the service did, in order (a copy). Optionally only some kinds and/or one subject. */
  witnessed(kinds?: WitnessKind | WitnessKind[], subject?: string): WitnessEntry[] {
    const wanted = kinds === undefined ? null : new Set(Array.isArray(kinds) ? kinds : [kinds]);
    return this.#witness
      .filter((e) => (!wanted || wanted.has(e.kind)) && (subject === undefined || e.subject === subject))
      .map((e) => ({ ...e, detail: { ...e.detail } }));
  }

  count(kinds: WitnessKind | WitnessKind[], subject?: string): number {
    return this.witnessed(kinds, subject).length;
  }

  /** The log as lines, for assertion messages. */
  transcript(): string {
    return this.#witness.map((e) => `#${e.seq} ${e.kind} ${e.subject} by ${e.by} ${JSON.stringify(e.detail)}`).join("\n");
  }

  #witnessThat(kind: WitnessKind, by: string, subject: string, detail: Record<string, unknown> = {}) {
    this.#witness.push({ seq: this.#witness.length + 1, at: Date.now(), kind, by, subject, detail });
    for (const wake of [...this.#waiters]) wake();
  }

  /** Resolves when `predicate` holds for the log (checked on every new entry); rejects after timeoutMs. */
  until(predicate: (service: this) => boolean, timeoutMs = 5_000): Promise<void> {
    if (predicate(this)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters.delete(check);
        reject(new Error(`fake service: condition not met within ${timeoutMs} ms; witness log:\n${this.transcript()}`));
      }, timeoutMs);
      const check = () => {
        if (!predicate(this)) return;
        clearTimeout(timer);
        this.#waiters.delete(check);
        resolve();
      };
      this.#waiters.add(check);
    });
  }

  #id(prefix: string) {
    return `${prefix}_${++this.#ids}`;
  }

  #later(ms: number, fn: () => void) {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      fn();
    }, ms);
    this.#timers.add(timer);
    return timer;
  }

  /** Stops every background timer (jobs, delayed applications). Call after each test. */
  dispose() {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    this.#waiters.clear();
  }

  // ---- operations: accepted now, applied later -------------------------------------------------

  /**
   * Accepts an operation (e.g. "create CRM record"). Idempotent by key: a second submit with the same key
   * returns the first operation and creates nothing (and is witnessed, so a re-submission shows up).
   */
  submitOperation(input: { idempotencyKey: string; kind: string; payload: unknown; by: string }): Operation {
    const existing = this.#operationByKey.get(input.idempotencyKey);
    if (existing) {
      this.#witnessThat("operation.duplicate_submit", input.by, existing, { idempotencyKey: input.idempotencyKey });
      return { ...this.#operations.get(existing)! };
    }
    const op: Operation = {
      id: this.#id("op"),
      idempotencyKey: input.idempotencyKey,
      kind: input.kind,
      payload: input.payload,
      status: "accepted",
      recordId: null,
      producedVersion: null,
    };
    this.#operations.set(op.id, op);
    this.#operationByKey.set(input.idempotencyKey, op.id);
    this.#witnessThat("operation.accepted", input.by, op.id, { idempotencyKey: input.idempotencyKey, kind: input.kind });
    if (this.applyAfterMs === 0) this.applyOperation(op.id);
    else if (this.applyAfterMs !== null) this.#later(this.applyAfterMs, () => this.applyOperation(op.id));
    return { ...op };
  }

  /** The service carries out an accepted operation: the record now exists (version 1). */
  applyOperation(operationId: string): Operation {
    const op = this.#mustOperation(operationId);
    if (op.status !== "accepted") return { ...op };
    const record: ServiceRecord = {
      id: this.#id("rec"),
      kind: op.kind,
      version: 1,
      data: { ...(op.payload as object) },
      archived: false,
      createdBy: `operation:${op.id}`,
    };
    this.#records.set(record.id, record);
    op.status = "applied";
    op.recordId = record.id;
    op.producedVersion = record.version;
    this.#witnessThat("operation.applied", "service", op.id, { recordId: record.id });
    this.#witnessThat("record.created", `operation:${op.id}`, record.id, { version: record.version, kind: op.kind });
    return { ...op };
  }

  /**
   * What the caller of submitOperation waits on. Resolves with the operation once it is applied or
   * cancelled; with `acceptThenTimeout` the answer is lost (the operation still applies): it rejects after
   * `timeoutMs`, or never answers at all without one. Rejects when `signal` aborts.
   */
  awaitOperation(operationId: string, options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<Operation> {
    const { signal, timeoutMs } = options;
    return new Promise<Operation>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        this.#waiters.delete(check);
        if (timer) clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
      };
      const onAbort = () => {
        done();
        reject(signal!.reason ?? new Error("aborted"));
      };
      const check = () => {
        if (this.faults.acceptThenTimeout) return;
        const op = this.#operations.get(operationId);
        if (op && op.status !== "accepted") {
          done();
          resolve({ ...op });
        }
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => {
          done();
          reject(new ServiceTimeoutError(`operation ${operationId}: no answer within ${timeoutMs} ms`));
        }, timeoutMs);
      }
      this.#waiters.add(check);
      check();
    });
  }

  /** The operation's cancel endpoint. An operation that already applied cannot be cancelled (it says so, like MCP). */
  cancelOperation(operationId: string, by: string): { status: "cancelled" | "already_applied" | "ignored" | "already_cancelled" } {
    this.#witnessThat("operation.cancel_requested", by, operationId);
    if (this.faults.cancelUnavailable) {
      this.#witnessThat("endpoint.unavailable", by, operationId, { endpoint: "cancelOperation" });
      throw new ServiceUnavailableError(`503: the cancel endpoint for ${operationId} is unavailable`);
    }
    const op = this.#mustOperation(operationId);
    if (op.status === "applied") {
      this.#witnessThat("operation.cancel_ignored", "service", operationId, { why: "already applied" });
      return { status: "already_applied" };
    }
    if (op.status === "cancelled") return { status: "already_cancelled" };
    if (this.faults.ignoreCancellation) {
      this.#witnessThat("operation.cancel_ignored", "service", operationId, { why: "ignoreCancellation fault" });
      return { status: "ignored" };
    }
    op.status = "cancelled";
    this.#witnessThat("operation.cancelled", "service", operationId);
    return { status: "cancelled" };
  }

  /** The authoritative status, by operation id or idempotency key. A read: it never creates anything. */
  inspectOperation(ref: { operationId?: string | null; idempotencyKey?: string | null }, by: string): Operation | null {
    const id = ref.operationId ?? (ref.idempotencyKey ? this.#operationByKey.get(ref.idempotencyKey) : undefined);
    const op = id ? this.#operations.get(id) : undefined;
    this.#witnessThat("operation.inspected", by, id ?? `key:${ref.idempotencyKey}`, { found: !!op, status: op?.status ?? null });
    return op ? { ...op } : null;
  }

  #mustOperation(id: string): Operation {
    const op = this.#operations.get(id);
    if (!op) throw new Error(`fake service: no operation ${id}`);
    return op;
  }

  // ---- records ---------------------------------------------------------------------------------

  record(recordId: string): ServiceRecord | null {
    const r = this.#records.get(recordId);
    return r ? { ...r, data: { ...r.data } } : null;
  }

  records(): ServiceRecord[] {
    return [...this.#records.values()].map((r) => ({ ...r, data: { ...r.data } }));
  }

  /** Someone else (other staff) edits a record: its version moves on. */
  editRecord(recordId: string, by: string, changes: Record<string, unknown>): ServiceRecord {
    const r = this.#records.get(recordId);
    if (!r) throw new Error(`fake service: no record ${recordId}`);
    r.version += 1;
    Object.assign(r.data, changes);
    this.#witnessThat("record.edited", by, recordId, { version: r.version, changes });
    return { ...r, data: { ...r.data } };
  }

  /** Archives a record only if it still has `expectedVersion` (compensation must not overwrite someone's edit). */
  archiveRecord(recordId: string, expectedVersion: number | null, by: string): ArchiveResult {
    const r = this.#records.get(recordId);
    if (!r) return { status: "not_found" };
    if (expectedVersion === null || r.version !== expectedVersion) {
      this.#witnessThat("record.archive_refused", by, recordId, { expectedVersion, currentVersion: r.version });
      return { status: "conflict", currentVersion: r.version };
    }
    r.archived = true;
    this.#witnessThat("record.archived", by, recordId, { version: r.version });
    return { status: "archived" };
  }

  // ---- remote jobs -----------------------------------------------------------------------------

  /** Starts a job that does `steps` steps of `stepMs` each. Idempotent by key. */
  startJob(input: { key: string; steps: number; stepMs: number; by: string; result?: unknown }): Job {
    const existing = this.#jobByKey.get(input.key);
    if (existing) {
      this.#witnessThat("job.duplicate_start", input.by, existing, { key: input.key });
      return { ...this.#jobs.get(existing)! };
    }
    const job: Job = { id: this.#id("job"), key: input.key, status: "running", steps: input.steps, stepsDone: 0, result: null };
    this.#jobs.set(job.id, job);
    this.#jobByKey.set(input.key, job.id);
    this.#witnessThat("job.started", input.by, job.id, { key: input.key, steps: input.steps });
    const step = () => {
      if (job.status !== "running") return;
      job.stepsDone += 1;
      this.#witnessThat("job.step", "service", job.id, { step: job.stepsDone });
      if (job.stepsDone >= job.steps) {
        job.status = "finished";
        job.result = input.result ?? { steps: job.stepsDone };
        this.#witnessThat("job.finished", "service", job.id, { steps: job.stepsDone });
      } else this.#later(input.stepMs, step);
    };
    this.#later(input.stepMs, step);
    return { ...job };
  }

  cancelJob(jobId: string, by: string): { status: "cancelled" | "already_finished" | "ignored" | "already_cancelled" } {
    this.#witnessThat("job.cancel_requested", by, jobId);
    if (this.faults.cancelUnavailable) {
      this.#witnessThat("endpoint.unavailable", by, jobId, { endpoint: "cancelJob" });
      throw new ServiceUnavailableError(`503: the cancel endpoint for ${jobId} is unavailable`);
    }
    const job = this.#mustJob(jobId);
    if (job.status === "finished") {
      this.#witnessThat("job.cancel_ignored", "service", jobId, { why: "already finished" });
      return { status: "already_finished" };
    }
    if (job.status === "cancelled") return { status: "already_cancelled" };
    if (this.faults.ignoreCancellation) {
      this.#witnessThat("job.cancel_ignored", "service", jobId, { why: "ignoreCancellation fault" });
      return { status: "ignored" };
    }
    job.status = "cancelled";
    this.#witnessThat("job.cancelled", "service", jobId, { stepsDone: job.stepsDone });
    return { status: "cancelled" };
  }

  inspectJob(ref: { jobId?: string | null; key?: string | null }, by: string): Job | null {
    const id = ref.jobId ?? (ref.key ? this.#jobByKey.get(ref.key) : undefined);
    const job = id ? this.#jobs.get(id) : undefined;
    this.#witnessThat("job.inspected", by, id ?? `key:${ref.key}`, { found: !!job, status: job?.status ?? null });
    return job ? { ...job } : null;
  }

  /** A job's state without a witness entry (for polling loops that are not part of what is being tested). */
  peekJob(jobId: string): Job | null {
    const job = this.#jobs.get(jobId);
    return job ? { ...job } : null;
  }

  /** Resolves when the job finished or was cancelled; rejects when `signal` aborts. */
  awaitJob(jobId: string, signal?: AbortSignal): Promise<Job> {
    return new Promise<Job>((resolve, reject) => {
      const done = () => {
        this.#waiters.delete(check);
        signal?.removeEventListener("abort", onAbort);
      };
      const onAbort = () => {
        done();
        reject(signal!.reason ?? new Error("aborted"));
      };
      const check = () => {
        const job = this.#jobs.get(jobId);
        if (job && job.status !== "running") {
          done();
          resolve({ ...job });
        }
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiters.add(check);
      check();
    });
  }

  #mustJob(id: string): Job {
    const job = this.#jobs.get(id);
    if (!job) throw new Error(`fake service: no job ${id}`);
    return job;
  }

  // ---- locks -----------------------------------------------------------------------------------

  acquireLock(handle: string, holder: string) {
    const held = this.#locks.get(handle);
    if (held && held.holder !== holder) throw new LockBusyError(`lock ${handle} is held by ${held.holder}`);
    this.#locks.set(handle, { holder, since: Date.now() });
    this.#witnessThat("lock.acquired", holder, handle);
  }

  /** Acknowledged either way; with `neverReleaseLock` the lock silently stays held. */
  releaseLock(handle: string, by: string) {
    if (!this.#locks.has(handle)) {
      this.#witnessThat("lock.release_noop", by, handle, { why: "not held" });
      return;
    }
    if (this.faults.neverReleaseLock) {
      this.#witnessThat("lock.release_ignored", by, handle, { holder: this.#locks.get(handle)!.holder });
      return;
    }
    this.#locks.delete(handle);
    this.#witnessThat("lock.released", by, handle);
  }

  /** The verification query: is the lock still held? (witnessed: verification is evidence too) */
  isLockHeld(handle: string, by: string): boolean {
    const held = this.#locks.has(handle);
    this.#witnessThat("lock.queried", by, handle, { held });
    return held;
  }

  heldLocks(): string[] {
    return [...this.#locks.keys()];
  }

  // ---- local work reported by a tool -----------------------------------------------------------

  /** A tool's local work leaves a trace too (started, each step, stopped, finished). */
  note(kind: "work.started" | "work.step" | "work.stopped" | "work.finished", by: string, subject: string, detail: Record<string, unknown> = {}) {
    this.#witnessThat(kind, by, subject, detail);
  }
}

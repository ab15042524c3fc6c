import type { CallRef, InspectOutcome, ResourceRef } from "../../lib/tools/contract";

/** A small deterministic PRNG (mulberry32): a test's random choices stay reproducible from one seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface ServiceOperation {
  operationId: string;
  /** The truth the test controls: did the action take effect in the world? */
  committed: boolean;
}

/**
 * An in-memory "authoritative service" whose truth a test controls. Requests are keyed by the work item's
 * idempotency key (what a real client sends with the request), so the service can be asked about an action
 * whose operation id never reached the ledger (the worker died between the call and ctx.submitted()).
 *
 * - submit: accepts (returns the operation, committed or not as the test decides) unless the provider already
 *   cancelled that key, in which case it refuses (a provider cancel that was acknowledged holds).
 * - cancel: too late for a committed action; otherwise tombstones the key so a late request is refused.
 * - inspect: answers from the truth; `unknown` when the test made the service unreachable.
 */
export class FakeExternalService {
  readonly operations = new Map<string, ServiceOperation>();
  readonly cancelledKeys = new Set<string>();
  /** Who sent each request (a lease token): the same action sent by two claims is a re-submission. */
  readonly senders = new Map<string, Set<string>>();
  inspectUnavailable = false;
  cancelUnavailable = false;
  #next = 0;

  constructor(readonly name: string) {}

  submit(idempotencyKey: string, commits: boolean, sender: string): ServiceOperation | null {
    this.senders.set(idempotencyKey, (this.senders.get(idempotencyKey) ?? new Set()).add(sender));
    const existing = this.operations.get(idempotencyKey);
    if (existing) return existing; // idempotent: the same key is the same action
    if (this.cancelledKeys.has(idempotencyKey)) return null;
    const op = { operationId: `${this.name}-op-${++this.#next}`, committed: commits };
    this.operations.set(idempotencyKey, op);
    return op;
  }

  async cancel(ref: CallRef): Promise<void> {
    if (this.cancelUnavailable) throw new Error(`${this.name}: cancel endpoint unavailable`);
    if (!this.operations.has(ref.idempotencyKey)) this.cancelledKeys.add(ref.idempotencyKey);
  }

  async inspect(ref: CallRef): Promise<InspectOutcome> {
    if (this.inspectUnavailable) return { status: "unknown", reason: `${this.name} is unreachable` };
    const op = this.operations.get(ref.idempotencyKey);
    if (op?.committed)
      return { status: "committed", externalRecordId: `rec-${op.operationId}`, externalVersion: "v1", description: `${this.name} action ${op.operationId}` };
    return { status: "not_committed" };
  }

  /** Actions that more than one sender submitted (invariant 5: never re-run to find out). */
  resubmitted(): string[] {
    return [...this.senders].filter(([, senders]) => senders.size > 1).map(([key]) => key);
  }

  committedKeys(): string[] {
    return [...this.operations].filter(([, op]) => op.committed).map(([key]) => key);
  }
}

/** Resources held by local tools; cleanup may fail (the test decides), verification reads the truth. */
export class FakeResourceStore {
  readonly state = new Map<string, "held" | "released">();
  constructor(readonly cleanupSucceeds: () => boolean) {}

  hold(handle: string) {
    this.state.set(handle, "held");
  }
  release(handle: string) {
    this.state.set(handle, "released");
  }
  async cleanup(r: ResourceRef): Promise<void> {
    if (!this.cleanupSucceeds()) throw new Error(`could not release ${r.type} ${r.handle}`);
    this.state.set(r.handle, "released");
  }
  async verifyReleased(r: ResourceRef): Promise<boolean> {
    return this.state.get(r.handle) !== "held";
  }
}

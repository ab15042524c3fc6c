import {
  isOpenReview,
  type Mechanism,
  type ReviewItemKind,
  type ReviewItemStatus,
  ResourceState,
  type SideEffectOutcome,
  type WorkItemKind,
  type WorkItemStatus,
} from "../ledger/states";

/**
 * The ledger facts a child's outcome is derived from — nothing else (no model, no worker's say-so). Times are
 * epoch milliseconds so that the same pure functions run on the server (Prisma rows: Date) and in the browser
 * (API JSON: ISO strings); `childFacts` below reads either.
 */
export interface ChildFacts {
  status: WorkItemStatus;
  kind: WorkItemKind;
  mechanism: Mechanism;
  commitsEffect: boolean;
  startedAt: number | null;
  finishedAt: number | null;
  /** Until when reconciliation asks the service (null: nothing will ask; a person decides). */
  reconcileDeadline: number | null;
  /** A worker still holds a live lease on it: the call is still being watched by whoever runs it. */
  leaseLive: boolean;
  /** The one provider cancel / rollback of this child (issue 9's fence columns). */
  cancel: { dispatchedAt: number | null; answeredAt: number | null; withdrawnAt: number | null };
  /** The running code reported a partial result (kept or discarded: the status says which). */
  hasPartial: boolean;
  /** The external effects this child submitted, with what the service says about each. */
  effects: { outcome: SideEffectOutcome; reversible: boolean }[];
  /** Review items about this child or its effects (open, escalated or decided). */
  reviews: { kind: ReviewItemKind; status: ReviewItemStatus; deadline: number; decidedAt?: number | null; updatedAt?: number | null }[];
  /** A Stop of this child alone or of an ancestor (issue 13, a scoped Stop): its own boundary and settlement. */
  ownStop?: StopFacts | null;
  /** The states of the resources it held (a lock, a temp file, a draft): a "discarded" is only said once they are released. */
  resources?: string[];
  /** How many of its ORPHANED resources stand for intents its service could not answer for (never "could not be released"). */
  unconfirmedAtService?: number;
}

/** The task's Stop, if any: when its boundary was recorded, and when the engine's pass settled it. */
export interface StopFacts {
  requestedAt: number | null;
  settledAt: number | null;
}

type Time = Date | string | null | undefined;
const ms = (t: Time): number | null => (t == null ? null : typeof t === "string" ? Date.parse(t) : t.getTime());

/** A work item as both the database (Date) and the API (ISO string) spell it. */
export interface WorkItemLike {
  id: string;
  status: string;
  kind: string;
  mechanism: string;
  commitsEffect: boolean;
  startedAt: Time;
  finishedAt: Time;
  reconcileDeadline: Time;
  leaseExpiresAt: Time;
  partialResult: unknown;
  cancelDispatchedAt?: Time;
  cancelAnsweredAt?: Time;
  cancelWithdrawnAt?: Time;
  /** A scoped Stop of this child (or an ancestor): when it was recorded and when its pass settled. */
  stopRequestedAt?: Time;
  stopSettledAt?: Time;
  /** Its service said the call still runs after it left its worker: what it holds is held by running work. */
  serviceRunningAt?: Time;
}
export interface SideEffectLike {
  id: string;
  workItemId: string;
  outcome: string;
  reversible: boolean;
}
export interface ReviewItemLike {
  workItemId: string | null;
  sideEffectId: string | null;
  kind: string;
  status: string;
  deadline: Time;
  decidedAt?: Time;
  updatedAt?: Time;
}
export interface ResourceLike {
  workItemId: string;
  state: string;
  serviceCouldNotSay?: boolean;
}

/**
 * The facts of one child from its rows: its side effects, and the review items about it or its effects.
 * `now` judges whether a lease is still live.
 */
export function childFacts(
  item: WorkItemLike,
  related: { sideEffects: SideEffectLike[]; reviewItems: ReviewItemLike[]; resources?: ResourceLike[] },
  now: number,
): ChildFacts {
  const effects = related.sideEffects.filter((e) => e.workItemId === item.id);
  const effectIds = new Set(effects.map((e) => e.id));
  const reviews = related.reviewItems.filter((r) => r.workItemId === item.id || (r.sideEffectId !== null && effectIds.has(r.sideEffectId)));
  const leaseExpires = ms(item.leaseExpiresAt);
  return {
    status: item.status as WorkItemStatus,
    kind: item.kind as WorkItemKind,
    mechanism: item.mechanism as Mechanism,
    commitsEffect: item.commitsEffect,
    startedAt: ms(item.startedAt),
    finishedAt: ms(item.finishedAt),
    reconcileDeadline: ms(item.reconcileDeadline),
    leaseLive: leaseExpires !== null && leaseExpires > now,
    cancel: { dispatchedAt: ms(item.cancelDispatchedAt), answeredAt: ms(item.cancelAnsweredAt), withdrawnAt: ms(item.cancelWithdrawnAt) },
    hasPartial: item.partialResult !== null && item.partialResult !== undefined,
    effects: effects.map((e) => ({ outcome: e.outcome as SideEffectOutcome, reversible: e.reversible })),
    reviews: reviews.map((r) => ({
      kind: r.kind as ReviewItemKind,
      status: r.status as ReviewItemStatus,
      deadline: ms(r.deadline) ?? 0,
      decidedAt: ms(r.decidedAt),
      updatedAt: ms(r.updatedAt),
    })),
    ownStop: item.stopRequestedAt ? { requestedAt: ms(item.stopRequestedAt), settledAt: ms(item.stopSettledAt) } : null,
    resources: related.resources?.filter((r) => r.workItemId === item.id).map((r) => r.state),
    unconfirmedAtService: related.resources?.filter((r) => r.workItemId === item.id && r.state === ResourceState.orphaned && r.serviceCouldNotSay).length,
  };
}

export function stopFacts(task: { cancelRequestedAt: Time; settledAt?: Time }): StopFacts {
  return { requestedAt: ms(task.cancelRequestedAt), settledAt: ms(task.settledAt) };
}

/** The earliest deadline of the open review items of one kind (null: none open). */
export function openReviewDeadline(reviews: ChildFacts["reviews"], kinds: readonly ReviewItemKind[]): number | null {
  const open = reviews.filter((r) => kinds.includes(r.kind) && isOpenReview(r.status)).map((r) => r.deadline);
  return open.length ? Math.min(...open) : null;
}

/** A task as both the database and the API spell it: its children and what a person was asked about them. */
export interface TaskLike {
  cancelRequestedAt: Time;
  settledAt?: Time;
  workItems: WorkItemLike[];
  sideEffects: SideEffectLike[];
  reviewItems: ReviewItemLike[];
  /** Its resources (optional: without them a "discarded" cannot be contradicted by a resource still held). */
  resources?: ResourceLike[];
}

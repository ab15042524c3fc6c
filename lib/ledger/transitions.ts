import { IllegalTransitionError } from "./errors";
import type { IncidentState, ResourceIntentState, ResourceState, ReviewItemStatus, SideEffectOutcome, TaskStage, WorkItemStatus } from "./states";

/**
 * The transition tables. Every allowed transition is listed; everything else is rejected with
 * IllegalTransitionError. Pure: no database, no clock.
 */
type Table<S extends string> = { readonly [From in S]: readonly S[] };

export const TASK_TRANSITIONS: Table<TaskStage> = {
  active: ["cancel_requested", "completed", "failed"],
  cancel_requested: ["cancelled"],
  cancelled: [],
  completed: [],
  failed: [],
};

export const WORK_ITEM_TRANSITIONS: Table<WorkItemStatus> = {
  // claim, or removed from dispatch at the boundary
  queued: ["running", "cancelled"],
  // queued: lease expired before any external submission (safe to retry);
  // cancelled: lease expired after the boundary, nothing submitted;
  // uncertain: the worker vanished while it may have been mid-submission
  // partial / cancelled_incomplete: the running code saw its AbortSignal and stopped itself
  running: ["submitted", "completed", "failed", "cancelling", "unrecoverable", "uncertain", "queued", "cancelled", "partial", "cancelled_incomplete"],
  // cancelled: the provider confirmed the action was cancelled before it took effect;
  // partial / cancelled_incomplete: its holder saw it stop after a Stop (the service confirmed), before the
  // engine had marked it cancelling — the same facts as from cancelling
  submitted: ["completed", "failed", "cancelling", "unrecoverable", "uncertain", "cancelled", "partial", "cancelled_incomplete"],
  // a stop raced with completion: completed/failed stand as they are
  cancelling: ["cancelled", "partial", "cancelled_incomplete", "completed", "failed", "uncertain"],
  unrecoverable: ["completed", "failed", "uncertain"],
  // reconciliation: committed → completed; never accepted → cancelled
  uncertain: ["completed", "failed", "cancelled", "partial", "cancelled_incomplete"],
  completed: [],
  failed: [],
  cancelled: [],
  partial: [],
  cancelled_incomplete: [],
};

export const RESOURCE_TRANSITIONS: Table<ResourceState> = {
  held: ["release_requested", "released", "orphaned"],
  release_requested: ["released", "orphaned", "held"],
  orphaned: ["released"],
  released: [],
};

// Written ahead (issue 19): an open intent is bound to the concrete resource, found not held, or left unresolved
// (the service could not say: its orphaned resource and review item carry it on — a person decides).
export const RESOURCE_INTENT_TRANSITIONS: Table<ResourceIntentState> = {
  open: ["bound", "not_held", "unresolved"],
  unresolved: [],
  bound: [],
  not_held: [],
};

export const SIDE_EFFECT_TRANSITIONS: Table<SideEffectOutcome> = {
  unknown: ["committed", "not_committed"],
  committed: ["compensated"],
  not_committed: [],
  compensated: [],
};

export const REVIEW_ITEM_TRANSITIONS: Table<ReviewItemStatus> = {
  open: ["escalated", "approved", "rejected", "resolved"],
  escalated: ["approved", "rejected", "resolved"],
  // escalated: the compensation met a record someone else changed, or it failed
  approved: ["resolved", "escalated"],
  rejected: [],
  resolved: [],
};

export const INCIDENT_TRANSITIONS: Table<IncidentState> = {
  active: ["lift_requested"],
  // confirmed by another operator → lifted; withdrawn (or refused) → active again
  lift_requested: ["lifted", "active"],
  lifted: [],
};

export const TABLES = {
  task: TASK_TRANSITIONS,
  workItem: WORK_ITEM_TRANSITIONS,
  resource: RESOURCE_TRANSITIONS,
  resourceIntent: RESOURCE_INTENT_TRANSITIONS,
  sideEffect: SIDE_EFFECT_TRANSITIONS,
  reviewItem: REVIEW_ITEM_TRANSITIONS,
  incident: INCIDENT_TRANSITIONS,
} as const;
export type Entity = keyof typeof TABLES;
type StateOf<E extends Entity> = keyof (typeof TABLES)[E] & string;

export function canTransition<E extends Entity>(entity: E, from: string, to: string): boolean {
  const table = TABLES[entity] as Record<string, readonly string[]>;
  return Object.hasOwn(table, from) && table[from].includes(to);
}

/** Returns `to` when the move is allowed; throws IllegalTransitionError (with the current state) otherwise. */
export function transition<E extends Entity>(entity: E, from: string, to: StateOf<E>): StateOf<E> {
  if (!canTransition(entity, from, to)) throw new IllegalTransitionError(entity, from, to);
  return to;
}

/** Every state from which `to` may be reached (what a compare-and-set written in SQL may accept as "from"). */
export function fromStatesInto<E extends Entity>(entity: E, to: string): string[] {
  const table = TABLES[entity] as Record<string, readonly string[]>;
  return Object.keys(table).filter((from) => table[from].includes(to));
}

/**
 * The moves the raw-SQL hot paths make with constant states (lib/ledger/sql/), checked against the
 * table when the statement runs, as `transition()` checks the Prisma path: a table that no longer allows one makes
 * the statement refuse (IllegalTransitionError) instead of writing a move the table forbids.
 */
export const SQL_MOVES = {
  claim: ["workItem", "queued", "running"],
  removeQueued: ["workItem", "queued", "cancelled"],
  abortRunning: ["workItem", "running", "cancelling"],
  boundary: ["task", "active", "cancel_requested"],
  settleStopped: ["task", "cancel_requested", "cancelled"],
} as const satisfies Record<string, readonly [Entity, string, string]>;

export function checkSqlMove(move: keyof typeof SQL_MOVES): void {
  const [entity, from, to] = SQL_MOVES[move];
  if (!canTransition(entity, from, to)) throw new IllegalTransitionError(entity, from, to);
}

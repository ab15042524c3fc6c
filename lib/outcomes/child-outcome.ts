import { Mechanism, ReviewItemKind, ResourceState, ReviewItemStatus, SideEffectOutcome, WorkItemKind, WorkItemStatus } from "../ledger/states";
import { childFacts, openReviewDeadline, stopFacts, type ChildFacts, type StopFacts, type TaskLike } from "./facts";

/**
 * THE outcome vocabulary: what became of one child, derived from ledger facts only. The summary JSON, its
 * user message, the chat, the console (task detail and list), the audit and its exports all name a child's
 * outcome through `childOutcome` and describe it through `describeOutcome` (words.ts) — nowhere else.
 *
 * Every kind has its words in words.ts (a `Record<OutcomeKind, …>`): a kind without words does not compile.
 */
export const OutcomeKind = {
  /** Queued; nobody pressed Stop. */
  waiting: "waiting",
  /** Running; nobody pressed Stop. */
  running: "running",
  /** The service accepted the action; its answer is pending. */
  awaitingService: "awaiting_service",
  /** Stop was pressed; the engine is still stopping this child (its pass has not finished). */
  stopping: "stopping",
  /** Finished its work; nobody pressed Stop. */
  completed: "completed",
  /** Finished before the Stop was recorded: completed work, not a cancellation. */
  completedBeforeStop: "completed_before_stop",
  /** Finished after the Stop although nothing reported a failed stop: it did not stop in time. */
  finishedAfterStop: "finished_after_stop",
  /** Ended with an error; it had no effect. */
  failed: "failed",
  /** Removed from dispatch by the Stop: it never started. */
  neverStarted: "never_started",
  /** Stopped while running (confirmed: the service, or the code itself, said so). */
  stopped: "stopped",
  /** Stopped; a complete, valid part of its result is kept (PARTIAL_RESULT). */
  stoppedPartialKept: "stopped_partial_kept",
  /** Stopped; its unfinished result was discarded. */
  discarded: "discarded",
  /** A read we stopped waiting for: the service may have answered it anyway, and a read changes nothing. */
  abandoned: "abandoned",
  /** A stop was attempted and failed (or there is no way to stop it), and it finished anyway. */
  couldNotStopFinished: "could_not_stop_finished",
  /** A stop was attempted and failed (or there is no way to stop it), and it is still running. */
  couldNotStopRunning: "could_not_stop_running",
  /** Whether it took effect is not known: reconciliation asks the service, and/or a person decides. */
  outcomeUnknown: "outcome_unknown",
  /** Its effect took place (an order placed, an email sent) and stands. */
  tookEffect: "took_effect",
  /** Its effect took place and was reversed by an approved compensation. */
  reversed: "reversed",
} as const;
export type OutcomeKind = (typeof OutcomeKind)[keyof typeof OutcomeKind];
export const OUTCOME_KINDS = Object.values(OutcomeKind) as OutcomeKind[];

/** Why a child could not be stopped. */
export const StopFailure = {
  /** Its mechanism is `none`: nothing can stop it. */
  noMechanism: "no_mechanism",
  /** The service refused (or never answered) the cancel. */
  cancelRefused: "cancel_refused",
  /** The service acknowledged the cancel and carried on. */
  cancelIgnored: "cancel_ignored",
  /** It was told to stop and has not (a cooperative child past the engine's wait, a cancel still unanswered). */
  notStopping: "not_stopping",
} as const;
export type StopFailure = (typeof StopFailure)[keyof typeof StopFailure];

/** What a person is (or was) asked to decide about an effect that took place. */
export const EffectReview = {
  /** No review item (yet): nobody has been asked. */
  none: "none",
  /** A person decides by `deadline` (whether to reverse it, or — irreversible — how to follow up). */
  awaiting: "awaiting",
  /** Past its deadline, or the reversal met a record someone else changed, or failed: an operator is alerted. */
  escalated: "escalated",
  /** A person approved reversing it; the compensation is under way. */
  reversing: "reversing",
  /** A person decided to keep it. */
  kept: "kept",
} as const;
export type EffectReview = (typeof EffectReview)[keyof typeof EffectReview];

/** Why an effect's review was escalated (issue 20, item 5: say which, never "overdue, or refused"). */
export const EscalationCause = {
  /** Nobody decided by the deadline. */
  overdue: "overdue",
  /** Reversing it was refused before anything was done: the record changed since the agent's write. */
  refused: "refused",
  /** A person approved reversing it, and the reversal failed at the service. */
  failed: "failed",
} as const;
export type EscalationCause = (typeof EscalationCause)[keyof typeof EscalationCause];

/**
 * From the escalated review item: approved then escalated → the reversal failed; escalated (last written) at or after
 * its deadline without a decision → overdue; before its deadline without a decision → refused (a version conflict).
 * Unknown when the facts carry neither time (older callers).
 */
export function escalationCause(r: { deadline: number; decidedAt?: number | null; updatedAt?: number | null }): EscalationCause | null {
  if (r.decidedAt != null) return EscalationCause.failed;
  if (r.updatedAt == null) return null;
  return r.updatedAt >= r.deadline ? EscalationCause.overdue : EscalationCause.refused;
}

export type ChildOutcome =
  | { kind: typeof OutcomeKind.waiting }
  | { kind: typeof OutcomeKind.running }
  | { kind: typeof OutcomeKind.awaitingService; sentBeforeStop: boolean }
  | { kind: typeof OutcomeKind.stopping }
  | { kind: typeof OutcomeKind.completed }
  | { kind: typeof OutcomeKind.completedBeforeStop }
  | { kind: typeof OutcomeKind.finishedAfterStop; afterStopMs: number }
  | { kind: typeof OutcomeKind.failed }
  | { kind: typeof OutcomeKind.neverStarted }
  | { kind: typeof OutcomeKind.stopped }
  | { kind: typeof OutcomeKind.stoppedPartialKept }
  | { kind: typeof OutcomeKind.discarded; reply: boolean; draft: boolean; held?: Held }
  | { kind: typeof OutcomeKind.abandoned }
  | { kind: typeof OutcomeKind.couldNotStopFinished; reason: StopFailure; afterStopMs: number }
  | {
      kind: typeof OutcomeKind.couldNotStopRunning;
      reason: StopFailure /** The verdict as settled of a child that has ended since (story.ts): "was still running when the Stop settled". */;
      endedSince?: boolean;
    }
  | { kind: typeof OutcomeKind.outcomeUnknown; checkingUntil: number | null; personDecidesBy: number | null }
  | { kind: typeof OutcomeKind.tookEffect; reversible: boolean; review: EffectReview; deadline: number | null; escalation?: EscalationCause | null }
  | { kind: typeof OutcomeKind.reversed };

/**
 * What a stopped child still holds at the service: a "discarded" may not claim a cleanup its resources contradict
 * (issue 20, item 1). `not_released`: cleanup and its retry failed (ORPHANED) — an operator handles it;
 * `being_released`: its release is under way or not yet verified. Absent: nothing it held is left.
 */
export type Held = "being_released" | "not_released" | "unconfirmed_at_service";
function heldBy(child: ChildFacts): Held | undefined {
  const states = child.resources ?? [];
  const orphaned = states.filter((s) => s === ResourceState.orphaned).length;
  if (orphaned > (child.unconfirmedAtService ?? 0)) return "not_released";
  if (orphaned) return "unconfirmed_at_service";
  if (states.some((s) => s !== ResourceState.released)) return "being_released";
  return undefined;
}

const COMPENSATION = [ReviewItemKind.approveCompensation] as const;
const NOTICE = [ReviewItemKind.orphanedSideEffect] as const;
const UNCERTAIN = [ReviewItemKind.resolveUncertain] as const;

/**
 * What became of one child. Ordered rules — the first that applies decides:
 *  1. an effect the service confirmed decides over any stop status (a late report can commit a "stopped" child):
 *     reversed, or took effect (with whatever a person was asked);
 *  2. an effect of unknown outcome is an unknown outcome, whatever the status says;
 *  3. otherwise the status, read against the Stop (none; recorded and still being worked on; settled) and
 *     against what the stop attempt recorded (mechanism none, cancel refused, cancel acknowledged).
 */
export function childOutcome(child: ChildFacts, taskStop: StopFacts): ChildOutcome {
  // A Stop of this child alone (issue 13, a scoped Stop) is its Stop when it came first (or the task has none).
  const stop =
    child.ownStop?.requestedAt != null && (taskStop.requestedAt === null || child.ownStop.requestedAt <= taskStop.requestedAt) ? child.ownStop : taskStop;
  const stopAt = stop.requestedAt;
  const settled = stop.settledAt !== null;

  // 1–2. what the service says about the child's effects
  if (child.effects.some((e) => e.outcome === SideEffectOutcome.committed)) return tookEffect(child, stopAt);
  if (child.effects.some((e) => e.outcome === SideEffectOutcome.compensated)) return { kind: OutcomeKind.reversed };
  if (child.effects.some((e) => e.outcome === SideEffectOutcome.unknown) && child.status !== WorkItemStatus.submitted) return unknown(child);

  // 3. the status against the Stop
  switch (child.status) {
    case WorkItemStatus.queued:
      return stopAt === null ? { kind: OutcomeKind.waiting } : { kind: OutcomeKind.stopping };
    case WorkItemStatus.running:
      return stopAt === null ? { kind: OutcomeKind.running } : { kind: OutcomeKind.stopping };
    case WorkItemStatus.submitted:
      if (stopAt === null) return { kind: OutcomeKind.awaitingService, sentBeforeStop: false };
      return settled ? { kind: OutcomeKind.awaitingService, sentBeforeStop: true } : { kind: OutcomeKind.stopping };
    case WorkItemStatus.cancelling:
      return settled ? { kind: OutcomeKind.couldNotStopRunning, reason: stopFailure(child) } : { kind: OutcomeKind.stopping };
    case WorkItemStatus.unrecoverable:
      return { kind: OutcomeKind.couldNotStopRunning, reason: StopFailure.noMechanism };
    case WorkItemStatus.uncertain:
      // The service refused the cancel and the worker still watches the call: it is running on, not unknown.
      if (stopAt !== null && refused(child) && child.leaseLive && !child.commitsEffect)
        return { kind: OutcomeKind.couldNotStopRunning, reason: StopFailure.cancelRefused };
      return unknown(child);
    case WorkItemStatus.completed: {
      if (stopAt === null) return { kind: OutcomeKind.completed };
      if (child.finishedAt !== null && child.finishedAt < stopAt) return { kind: OutcomeKind.completedBeforeStop };
      const afterStopMs = Math.max(0, (child.finishedAt ?? stopAt) - stopAt);
      const reason = failedStop(child);
      return reason ? { kind: OutcomeKind.couldNotStopFinished, reason, afterStopMs } : { kind: OutcomeKind.finishedAfterStop, afterStopMs };
    }
    case WorkItemStatus.failed:
      return { kind: OutcomeKind.failed };
    case WorkItemStatus.cancelled:
      if (child.startedAt === null) return { kind: OutcomeKind.neverStarted };
      // Only our side of a read stopped: the service may have answered it anyway (and a read changes nothing).
      if (isRead(child)) return { kind: OutcomeKind.abandoned };
      return { kind: OutcomeKind.stopped };
    case WorkItemStatus.partial:
      return { kind: OutcomeKind.stoppedPartialKept };
    case WorkItemStatus.cancelledIncomplete:
      if (isRead(child) && !child.hasPartial) return { kind: OutcomeKind.abandoned };
      {
        const held = heldBy(child);
        return { kind: OutcomeKind.discarded, reply: child.kind === WorkItemKind.modelRequest, draft: child.commitsEffect, ...(held ? { held } : {}) };
      }
  }
}

/** A remote call that commits nothing and is stopped only on our side (its AbortSignal): a read. */
const isRead = (child: ChildFacts) => child.kind === WorkItemKind.remoteTool && !child.commitsEffect && child.mechanism === Mechanism.abortSignal;

/** The dispatched cancel answered, and the service did not acknowledge it. */
const refused = (child: ChildFacts) => child.cancel.dispatchedAt !== null && child.cancel.answeredAt !== null && child.cancel.withdrawnAt === null;

/** Why a child that went on after the Stop could not be stopped — or null when no stop attempt is known to have failed. */
function failedStop(child: ChildFacts): StopFailure | null {
  if (child.mechanism === Mechanism.none) return StopFailure.noMechanism;
  if (refused(child)) return StopFailure.cancelRefused;
  if (child.cancel.withdrawnAt !== null) return StopFailure.cancelIgnored;
  return null;
}

function stopFailure(child: ChildFacts): StopFailure {
  return failedStop(child) ?? StopFailure.notStopping;
}

function unknown(child: ChildFacts): ChildOutcome {
  return { kind: OutcomeKind.outcomeUnknown, checkingUntil: child.reconcileDeadline, personDecidesBy: openReviewDeadline(child.reviews, UNCERTAIN) };
}

function tookEffect(child: ChildFacts, stopAt: number | null): ChildOutcome {
  const reversible = child.effects.some((e) => e.outcome === SideEffectOutcome.committed && e.reversible);
  const kinds = reversible ? COMPENSATION : NOTICE;
  const reviews = child.reviews.filter((r) => (kinds as readonly string[]).includes(r.kind));
  const deadline = openReviewDeadline(child.reviews, kinds);
  if (!reviews.length) {
    // Nobody asked, and nobody pressed Stop: plain finished work (a placed order is what was asked for).
    if (stopAt === null && child.status === WorkItemStatus.completed) return { kind: OutcomeKind.completed };
    return { kind: OutcomeKind.tookEffect, reversible, review: EffectReview.none, deadline: null };
  }
  const review: EffectReview = reviews.some((r) => r.status === ReviewItemStatus.escalated)
    ? EffectReview.escalated
    : reviews.some((r) => r.status === ReviewItemStatus.approved)
      ? EffectReview.reversing
      : reviews.some((r) => r.status === ReviewItemStatus.open)
        ? EffectReview.awaiting
        : EffectReview.kept;
  const escalatedReview = reviews.find((r) => r.status === ReviewItemStatus.escalated);
  const cause = review === EffectReview.escalated && escalatedReview ? escalationCause(escalatedReview) : null;
  return { kind: OutcomeKind.tookEffect, reversible, review, deadline, ...(cause ? { escalation: cause } : {}) };
}

// ---- named groups (one question each) -----------------------------------------------------------------

/** Still changing on its own: the engine (or the child) has not reached an outcome a person can rely on. */
export const isMoving = (o: ChildOutcome): boolean =>
  o.kind === OutcomeKind.waiting || o.kind === OutcomeKind.running || o.kind === OutcomeKind.stopping || o.kind === OutcomeKind.awaitingService;

/** Outcomes that mean "the Stop did not fully hold for this child" (the summary's CANCELLATION_FAILED). */
export const isStopFailure = (o: ChildOutcome): boolean => o.kind === OutcomeKind.couldNotStopRunning;

/** Outcomes where something happened in the world (or may have) despite the Stop: not a clean cancellation. */
export const isNotCleanlyStopped = (o: ChildOutcome): boolean =>
  o.kind === OutcomeKind.tookEffect ||
  o.kind === OutcomeKind.reversed ||
  o.kind === OutcomeKind.outcomeUnknown ||
  o.kind === OutcomeKind.awaitingService ||
  o.kind === OutcomeKind.couldNotStopFinished ||
  o.kind === OutcomeKind.couldNotStopRunning ||
  o.kind === OutcomeKind.finishedAfterStop;

/** Every child's outcome of one task, by work item id (`now` judges leases). */
export function outcomesOfTask(task: TaskLike, now: number): Map<string, ChildOutcome> {
  const stop = stopFacts(task);
  const related = { sideEffects: task.sideEffects, reviewItems: task.reviewItems, resources: task.resources };
  return new Map(task.workItems.map((i) => [i.id, childOutcome(childFacts(i, related, now), stop)]));
}

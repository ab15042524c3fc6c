import {
  isActiveItem,
  isStoppedItem,
  Mechanism,
  ResourceState,
  SideEffectOutcome,
  WorkItemStatus,
} from "../ledger/states";

/** The seed's cancellation summary, plus IN_PROGRESS while the ledger does not yet know the end. */
export const SummaryStatus = {
  inProgress: "IN_PROGRESS",
  cancelled: "CANCELLED",
  partiallyCancelled: "PARTIALLY_CANCELLED",
  cancellationFailed: "CANCELLATION_FAILED",
} as const;
export type SummaryStatus = (typeof SummaryStatus)[keyof typeof SummaryStatus];

export const ToolCallStatus = {
  cancelled: "CANCELLED",
  cancelledIncomplete: "CANCELLED_INCOMPLETE",
  unrecoverable: "UNRECOVERABLE",
} as const;
export type ToolCallStatus = (typeof ToolCallStatus)[keyof typeof ToolCallStatus];

export interface SummaryFacts {
  task: { id: string; cancelRequestedAt: Date };
  workItems: {
    id: string;
    kind?: string;
    toolName: string;
    correlationId: string;
    status: string;
    mechanism: string;
    partialResult: unknown;
    partialComplete: boolean | null;
    startedAt: Date | null;
    finishedAt: Date | null;
    reconcileDeadline: Date | null;
  }[];
  resources: { id: string; workItemId: string; type: string; handle: string; state: string }[];
  sideEffects: { id: string; workItemId: string; operationId: string; externalRecordId: string | null; reversible: boolean; description: string | null; outcome: string }[];
  openReviewItems: number;
}

export interface CancellationSummary {
  task_id: string;
  status: SummaryStatus;
  cancel_requested_at: string;
  cancelled_tool_calls: {
    tool_call_id: string;
    tool_name: string;
    cancellation_status: ToolCallStatus;
    partial_result: { marker: "PARTIAL_RESULT"; value: unknown } | null;
    orphaned_resources: string[];
  }[];
  orphaned_side_effects: { tool_name: string; tool_call_id: string; description: string }[];
  /** Children that finished their work (before or despite the Stop). */
  completed_tool_calls: { tool_call_id: string; tool_name: string; status: string }[];
  /** Children whose outcome is not yet known, each with the deadline for finding out. */
  uncertain_tool_calls: { tool_call_id: string; tool_name: string; status: string; reconcile_deadline: string | null }[];
  open_review_items: number;
  user_message: string;
}

/**
 * Builds the summary from recorded facts only — never from what a model or a worker claimed. It says
 * "cancelled" only for children the ledger shows stopped or never started, "released" only for resources
 * whose release was verified, and IN_PROGRESS while anything is still being stopped or established.
 */
export function summarize(facts: SummaryFacts): CancellationSummary {
  const boundary = facts.task.cancelRequestedAt;
  // Children that finished before the Stop are completed work, not cancellations.
  const relevant = facts.workItems.filter((i) => !i.finishedAt || i.finishedAt >= boundary || isActiveItem(i.status));
  const resourcesOf = (id: string) => facts.resources.filter((r) => r.workItemId === id);
  const orphanedHandles = (id: string) => resourcesOf(id).filter((r) => r.state === ResourceState.orphaned).map((r) => `${r.type}:${r.handle}`);

  const cancelled: CancellationSummary["cancelled_tool_calls"] = [];
  const completed: CancellationSummary["completed_tool_calls"] = [];
  const uncertain: CancellationSummary["uncertain_tool_calls"] = [];
  const pending: string[] = [];
  let neverStarted = 0, stopped = 0, keptPartials = 0, discarded = 0, discardedReplies = 0, stillRunning = 0, finishedAnyway = 0;

  const effectsOf = (id: string) => facts.sideEffects.filter((e) => e.workItemId === id);
  for (const item of relevant) {
    const base = { tool_call_id: item.correlationId, tool_name: item.toolName };
    const unstoppable = item.mechanism === Mechanism.none;
    // A stop outcome is not the last word when an effect of the child took effect or may have (a late report).
    if (isStoppedItem(item.status)) {
      const effects = effectsOf(item.id);
      if (effects.some((e) => e.outcome === SideEffectOutcome.committed)) {
        completed.push({ ...base, status: "committed (reported late)" });
        continue;
      }
      if (effects.some((e) => e.outcome === SideEffectOutcome.unknown)) {
        uncertain.push({ ...base, status: "effect unknown (reported late)", reconcile_deadline: null });
        continue;
      }
    }
    switch (item.status) {
      case WorkItemStatus.cancelled:
        cancelled.push({ ...base, cancellation_status: ToolCallStatus.cancelled, partial_result: null, orphaned_resources: orphanedHandles(item.id) });
        if (!item.startedAt) neverStarted++;
        else stopped++;
        break;
      case WorkItemStatus.partial:
        cancelled.push({ ...base, cancellation_status: ToolCallStatus.cancelled, partial_result: { marker: "PARTIAL_RESULT", value: item.partialResult }, orphaned_resources: orphanedHandles(item.id) });
        stopped++;
        keptPartials++;
        break;
      case WorkItemStatus.cancelledIncomplete:
        cancelled.push({ ...base, cancellation_status: ToolCallStatus.cancelledIncomplete, partial_result: null, orphaned_resources: orphanedHandles(item.id) });
        if (item.kind === "model_request") discardedReplies++;
        else discarded++;
        break;
      case WorkItemStatus.unrecoverable:
        cancelled.push({ ...base, cancellation_status: ToolCallStatus.unrecoverable, partial_result: null, orphaned_resources: orphanedHandles(item.id) });
        stillRunning++;
        break;
      case WorkItemStatus.uncertain:
        uncertain.push({ ...base, status: item.status, reconcile_deadline: item.reconcileDeadline?.toISOString() ?? null });
        break;
      case WorkItemStatus.completed:
      case WorkItemStatus.failed:
        if (unstoppable && item.finishedAt && item.finishedAt >= boundary) {
          cancelled.push({ ...base, cancellation_status: ToolCallStatus.unrecoverable, partial_result: null, orphaned_resources: orphanedHandles(item.id) });
          finishedAnyway++;
        }
        completed.push({ ...base, status: item.status });
        break;
      default: // queued, running, submitted, cancelling: still being stopped or established
        pending.push(item.id);
    }
  }

  const unreversed = facts.sideEffects.filter((e) => e.outcome === SideEffectOutcome.committed);
  const unknownEffects = facts.sideEffects.filter((e) => e.outcome === SideEffectOutcome.unknown);
  const itemOf = (id: string) => facts.workItems.find((i) => i.id === id);
  const orphanedSideEffects = unreversed.map((e) => {
    const item = itemOf(e.workItemId);
    const what = e.description ?? `external action ${e.operationId}${e.externalRecordId ? ` (record ${e.externalRecordId})` : ""}`;
    return {
      tool_name: item?.toolName ?? "unknown",
      tool_call_id: item?.correlationId ?? e.workItemId,
      description: `${what} — ${e.reversible ? "completed; reversal needs a person's approval" : "completed and cannot be reversed"}`,
    };
  });
  const orphanedResources = facts.resources.filter((r) => r.state === ResourceState.orphaned).length;
  const unverifiedResources = facts.resources.filter((r) => r.state === ResourceState.held || r.state === ResourceState.releaseRequested).length;

  let status: SummaryStatus;
  if (pending.length > 0 || (unverifiedResources > 0 && stillRunning === 0)) status = SummaryStatus.inProgress;
  else if (stillRunning > 0) status = SummaryStatus.cancellationFailed;
  else if (unreversed.length || unknownEffects.length || uncertain.length || orphanedResources || completed.length) status = SummaryStatus.partiallyCancelled;
  else status = SummaryStatus.cancelled;

  const sentences = ["Stopped new work."];
  if (pending.length > 0) sentences.push(`${count(pending.length, "step is", "steps are")} still being stopped or checked.`);
  if (neverStarted) sentences.push(`${count(neverStarted, "queued step")} never started.`);
  if (stopped - keptPartials > 0) sentences.push(`${count(stopped - keptPartials, "running step")} stopped.`);
  if (keptPartials) sentences.push(`${count(keptPartials, "partial result")} kept.`);
  if (discarded) sentences.push(`${count(discarded, "draft")} discarded.`);
  if (discardedReplies) sentences.push(`${count(discardedReplies, "unfinished reply", "unfinished replies")} discarded.`);
  if (stillRunning) sentences.push(`${count(stillRunning, "step")} could not be stopped and ${stillRunning === 1 ? "is" : "are"} still running.`);
  if (finishedAnyway) sentences.push(`${count(finishedAnyway, "step")} could not be stopped and finished anyway.`);
  // Every completed child here ended at or after the Stop: it finished before it could be stopped.
  const completedWork = completed.length - finishedAnyway - unreversed.length;
  if (completedWork > 0) sentences.push(`${count(completedWork, "step")} finished before the Stop could reach ${completedWork === 1 ? "it" : "them"}.`);
  if (unreversed.length) {
    const irreversible = unreversed.every((e) => !e.reversible);
    const tail = facts.openReviewItems > 0 ? "; review required" : irreversible ? " and cannot be undone" : "; it has not been reversed";
    sentences.push(`${count(unreversed.length, "action")} already took effect${tail}.`);
  }
  if (uncertain.length || unknownEffects.length) {
    sentences.push(`${count(Math.max(uncertain.length, unknownEffects.length), "outcome")} not yet confirmed; we are checking with the service.`);
  }
  if (orphanedResources) sentences.push(`${count(orphanedResources, "resource")} could not be released; an operator has been asked to handle ${orphanedResources === 1 ? "it" : "them"}.`);
  if (unverifiedResources && status === SummaryStatus.inProgress) sentences.push(`Checking that ${count(unverifiedResources, "resource was", "resources were").toLowerCase()} released.`);

  return {
    task_id: facts.task.id,
    status,
    cancel_requested_at: boundary.toISOString(),
    cancelled_tool_calls: cancelled,
    orphaned_side_effects: orphanedSideEffects,
    completed_tool_calls: completed,
    uncertain_tool_calls: uncertain,
    open_review_items: facts.openReviewItems,
    user_message: sentences.join(" "),
  };
}

const WORDS = ["No", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten"];
/** "Two drafts", "One step is", "12 steps are". */
export function count(n: number, singular: string, plural = `${singular}s`): string {
  return `${WORDS[n] ?? String(n)} ${n === 1 ? singular : plural}`;
}

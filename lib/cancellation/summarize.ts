import { isOpenReview, ResourceIntentState, ResourceState, SideEffectOutcome, StopScope, WorkItemStatus } from "../ledger/states";
import {
  childFacts,
  childOutcome,
  describeOutcome,
  OutcomeKind,
  outcomeBadgeWords,
  resourceOutcomeOf,
  withServiceCouldNotSay,
  ResourceOutcome,
  stopFacts,
  summaryStatus,
  userMessage,
  utcFormat,
  rowsOf,
  sinceSentence,
  sinceSettlement,
  verdictOutcome,
  type ChildOutcome,
  type ReviewItemLike,
  type WorkItemLike,
} from "../outcomes";
import type { SummaryStatus } from "../outcomes/summary-status";
import { personFindings } from "../outcomes/person-findings";

export { SummaryStatus } from "../outcomes/summary-status";
export { count } from "../outcomes/user-message";

export const ToolCallStatus = {
  cancelled: "CANCELLED",
  cancelledIncomplete: "CANCELLED_INCOMPLETE",
  unrecoverable: "UNRECOVERABLE",
} as const;
export type ToolCallStatus = (typeof ToolCallStatus)[keyof typeof ToolCallStatus];

export interface SummaryFacts {
  task: { id: string; cancelRequestedAt: Date; settledAt: Date | null; cancelRequestedBy?: string | null; cancelReason?: string | null };
  /** What the Stop was for: this task (default), one child and its descendants, a conversation, a person, an incident. */
  scope?: { kind: StopScope; ref: string | null };
  workItems: (WorkItemLike & { toolName: string; correlationId: string; partialComplete: boolean | null })[];
  resources: { id: string; workItemId: string; type: string; handle: string; state: string }[];
  /**
   * Resource intents (written ahead, issue 19); `open` ones (a call may hold them, no answer named them yet) and
   * `unresolved` ones (its service could not say: the resource bound to it is not "could not be released") are read.
   */
  resourceIntents?: { workItemId: string; type: string; state: string; resourceId?: string | null }[];
  sideEffects: {
    id: string;
    workItemId: string;
    operationId: string;
    externalRecordId: string | null;
    reversible: boolean;
    description: string | null;
    outcome: string;
  }[];
  reviewItems: (ReviewItemLike & { id: string; decidedBy?: string | null })[];
  /** Judges whether a worker's lease is still live. */
  now: Date;
}

interface NamedResource {
  tool_call_id: string;
  tool_name: string;
  type: string;
  handle: string;
}

export interface CancellationSummary {
  task_id: string;
  /** What the Stop was for (issue 13): `task`; `work_item` (ref: the stopped child — the summary covers it and its
   *  descendants, the task goes on); `conversation`, `person` (ref: their id); `incident` (ref: the incident). */
  scope: { kind: StopScope; ref: string | null };
  status: SummaryStatus;
  cancel_requested_at: string;
  /** When the engine finished its full pass; null while it is still working (status IN_PROGRESS). */
  settled_at: string | null;
  cancelled_tool_calls: {
    tool_call_id: string;
    tool_name: string;
    cancellation_status: ToolCallStatus;
    partial_result: { marker: "PARTIAL_RESULT"; value: unknown } | null;
    orphaned_resources: string[];
  }[];
  orphaned_side_effects: { tool_name: string; tool_call_id: string; description: string }[];
  /** Children that ended at or after the Stop without being stopped (finished anyway, failed, took effect); work done before the Stop is only in tool_calls. */
  completed_tool_calls: { tool_call_id: string; tool_name: string; status: string }[];
  /** Children whose outcome is not yet known, each with the deadline for finding out. */
  uncertain_tool_calls: { tool_call_id: string; tool_name: string; status: string; reconcile_deadline: string | null }[];
  /** Every child, with its outcome in the one vocabulary (lib/outcomes). */
  tool_calls: {
    tool_call_id: string;
    tool_name: string;
    status: string;
    outcome: { kind: OutcomeKind; short: string; label: string };
    settled_outcome?: { kind: OutcomeKind; short: string; label: string };
  }[];
  /** What happened after the Stop settled, added to the settled verdict (never written over it): one line per child that ran on. */
  since_settlement: { tool_call_id: string; tool_name: string; ended_after_stop_ms: number | null; ignored_cancel: boolean; sentence: string }[];
  /** Every resource that could not be released, named: the call that held it, its type and handle. */
  orphaned_resources: NamedResource[];
  /** Resources still held by a child that could not be stopped and still runs (verified once it ends). */
  held_resources: NamedResource[];
  releasing_resources: NamedResource[];
  /**
   * What a call may hold at its service without a handle yet: written ahead before its request left, and no answer
   * named it (its worker died, or the answer was lost). `may_be_held`: Stopline asks the service, then releases and
   * verifies it; `service_could_not_say`: the service could not say, and an operator has been asked to check.
   */
  unconfirmed_resources: {
    tool_call_id: string;
    tool_name: string;
    type: string;
    outcome: typeof ResourceOutcome.mayBeHeld | typeof ResourceOutcome.serviceCouldNotSay;
  }[];
  open_review_items: number;
  /** Who recorded the Stop and the reason given (for an incident: the operator who opened it and its reason). */
  stopped_by: { actor: string | null; reason: string | null };
  user_message: string;
}

/**
 * Builds the summary from recorded facts only — never from what a model or a worker claimed. Each child's
 * outcome comes from the one vocabulary (lib/outcomes); the seed's lists are read off those outcomes; the
 * status is IN_PROGRESS until the engine's pass settled the Stop (Task.settledAt).
 */
export function summarize(facts: SummaryFacts): CancellationSummary {
  const boundary = facts.task.cancelRequestedAt;
  const stop = stopFacts(facts.task);
  const now = facts.now.getTime();
  // Each resource marked when it stands for an intent its service could not answer for (never "could not be released").
  const resources = withServiceCouldNotSay(facts.resources, facts.resourceIntents ?? []);
  const factsOf = new Map(
    facts.workItems.map((i) => [i.id, childFacts(i, { sideEffects: facts.sideEffects, reviewItems: facts.reviewItems, resources }, now)]),
  );
  const outcomes = new Map<string, ChildOutcome>(facts.workItems.map((i) => [i.id, childOutcome(factsOf.get(i.id)!, stop)]));
  // The verdict as settled (issue 20, item 4): what happened after the settlement is added, never written over it.
  const verdicts = new Map<string, ChildOutcome>(facts.workItems.map((i) => [i.id, verdictOutcome(factsOf.get(i.id)!, stop)]));
  const since = facts.workItems.flatMap((i) => {
    const s = sinceSettlement({ ...factsOf.get(i.id)!, resultRows: rowsOf(i as { result?: unknown; partialResult?: unknown }) }, stop);
    return s ? [{ item: i, since: s }] : [];
  });
  const itemOf = new Map(facts.workItems.map((i) => [i.id, i]));
  const call = (i: { correlationId: string; toolName: string }) => ({ tool_call_id: i.correlationId, tool_name: i.toolName });
  const named = (r: SummaryFacts["resources"][number]): NamedResource => {
    const item = itemOf.get(r.workItemId);
    return { tool_call_id: item?.correlationId ?? r.workItemId, tool_name: item?.toolName ?? "unknown", type: r.type, handle: r.handle };
  };

  // Resources: released only when verified (invariant 4); a child still at work keeps what it holds.
  const resourceOutcomes = resources.map((r) => ({ r, outcome: resourceOutcomeOf(r, itemOf.get(r.workItemId), true) }));
  const orphaned = resourceOutcomes.filter((x) => x.outcome === ResourceOutcome.notReleased).map((x) => x.r);
  const couldNotSay = resourceOutcomes.filter((x) => x.outcome === ResourceOutcome.serviceCouldNotSay).map((x) => x.r);
  const held = resourceOutcomes.filter((x) => x.outcome === ResourceOutcome.heldByRunningStep).map((x) => x.r);
  const releasing = resourceOutcomes.filter((x) => x.outcome === ResourceOutcome.beingReleased).map((x) => x.r);
  const beingReleased = releasing.length;
  // Written ahead: what the call may hold, by kind — open until an answer or its service names it, or unresolved (its
  // service could not say; a person checks).
  const mayBeHeld = (facts.resourceIntents ?? []).filter((i) => i.state === ResourceIntentState.open).length;
  const unconfirmed = (facts.resourceIntents ?? [])
    .filter((i) => i.state === ResourceIntentState.open || i.state === ResourceIntentState.unresolved)
    .map((i) => {
      const item = itemOf.get(i.workItemId);
      return {
        tool_call_id: item?.correlationId ?? i.workItemId,
        tool_name: item?.toolName ?? "unknown",
        type: i.type,
        outcome: i.state === ResourceIntentState.open ? ResourceOutcome.mayBeHeld : ResourceOutcome.serviceCouldNotSay,
      };
    });
  const orphanedHandles = (id: string) =>
    facts.resources.filter((r) => r.workItemId === id && r.state === ResourceState.orphaned).map((r) => `${r.type}:${r.handle}`);

  const cancelled: CancellationSummary["cancelled_tool_calls"] = [];
  const completed: CancellationSummary["completed_tool_calls"] = [];
  const uncertain: CancellationSummary["uncertain_tool_calls"] = [];
  for (const item of facts.workItems) {
    const o = outcomes.get(item.id)!;
    const stoppedStatus =
      item.status === WorkItemStatus.cancelled || item.status === WorkItemStatus.partial || item.status === WorkItemStatus.cancelledIncomplete;
    const entry = (cancellation_status: ToolCallStatus, partial: unknown = null) => ({
      ...call(item),
      cancellation_status,
      partial_result: partial === null ? null : { marker: "PARTIAL_RESULT" as const, value: partial },
      orphaned_resources: orphanedHandles(item.id),
    });
    switch (o.kind) {
      case OutcomeKind.neverStarted:
      case OutcomeKind.stopped:
        cancelled.push(entry(ToolCallStatus.cancelled));
        break;
      case OutcomeKind.stoppedPartialKept:
        cancelled.push(entry(ToolCallStatus.cancelled, item.partialResult ?? null));
        break;
      case OutcomeKind.discarded:
        cancelled.push(entry(ToolCallStatus.cancelledIncomplete));
        break;
      case OutcomeKind.couldNotStopRunning:
        cancelled.push(entry(ToolCallStatus.unrecoverable));
        break;
      case OutcomeKind.couldNotStopFinished:
        cancelled.push(entry(ToolCallStatus.unrecoverable));
        completed.push({ ...call(item), status: item.status });
        break;
      case OutcomeKind.finishedAfterStop:
      case OutcomeKind.failed:
        if (item.finishedAt && new Date(item.finishedAt) >= boundary) completed.push({ ...call(item), status: item.status });
        break;
      case OutcomeKind.tookEffect:
      case OutcomeKind.reversed:
        if (stoppedStatus) completed.push({ ...call(item), status: "committed (reported late)" });
        else if (!item.finishedAt || new Date(item.finishedAt) >= boundary) completed.push({ ...call(item), status: item.status });
        break;
      case OutcomeKind.outcomeUnknown:
        uncertain.push({
          ...call(item),
          status: stoppedStatus ? "effect unknown (reported late)" : item.status,
          reconcile_deadline: iso(item.reconcileDeadline),
        });
        break;
      case OutcomeKind.awaitingService:
        uncertain.push({ ...call(item), status: item.status, reconcile_deadline: iso(item.reconcileDeadline) });
        break;
      default: // waiting, running, stopping, completed (before the Stop), abandoned reads: no seed list claims anything
        break;
    }
  }

  const orphanedSideEffects = facts.sideEffects
    .filter((e) => e.outcome === SideEffectOutcome.committed)
    .map((e) => {
      const item = itemOf.get(e.workItemId);
      const what = e.description ?? `external action ${e.operationId}${e.externalRecordId ? ` (record ${e.externalRecordId})` : ""}`;
      const o = item ? outcomes.get(item.id) : undefined;
      const how =
        o?.kind === OutcomeKind.tookEffect
          ? describeOutcome(o, utcFormat)
          : e.reversible
            ? "took effect — it has not been reversed"
            : "took effect — it cannot be undone";
      return { tool_name: item?.toolName ?? "unknown", tool_call_id: item?.correlationId ?? e.workItemId, description: `${what}: ${how}` };
    });

  const all = [...verdicts.values()];
  const settled = facts.task.settledAt !== null;
  // Children that finished before the Stop are completed work, not news: left out of the message.
  const relevant = facts.workItems
    .filter((i) => !(i.status === WorkItemStatus.failed && i.finishedAt && new Date(i.finishedAt) < boundary))
    .map((i) => verdicts.get(i.id)!);
  return {
    task_id: facts.task.id,
    scope: facts.scope ?? { kind: StopScope.task, ref: null },
    status: summaryStatus({ settled, children: all, orphanedResources: orphaned.length + couldNotSay.length }),
    cancel_requested_at: boundary.toISOString(),
    settled_at: facts.task.settledAt?.toISOString() ?? null,
    cancelled_tool_calls: cancelled,
    orphaned_side_effects: orphanedSideEffects,
    completed_tool_calls: completed,
    uncertain_tool_calls: uncertain,
    tool_calls: facts.workItems.map((i) => {
      const o = outcomes.get(i.id)!;
      const v = verdicts.get(i.id)!;
      return {
        ...call(i),
        status: i.status,
        outcome: { kind: o.kind, short: outcomeBadgeWords(o).short, label: describeOutcome(o, utcFormat) },
        ...(v.kind !== o.kind ? { settled_outcome: { kind: v.kind, short: outcomeBadgeWords(v).short, label: describeOutcome(v, utcFormat) } } : {}),
      };
    }),
    since_settlement: since.map(({ item, since: s }) => ({
      ...call(item),
      ended_after_stop_ms: s.endedAfterStopMs,
      ignored_cancel: s.ignoredCancel,
      sentence: sinceSentence(toolWords(item.toolName), s, utcFormat),
    })),
    orphaned_resources: orphaned.map(named),
    held_resources: held.map(named),
    releasing_resources: releasing.map(named),
    unconfirmed_resources: unconfirmed,
    open_review_items: facts.reviewItems.filter((r) => isOpenReview(r.status)).length,
    stopped_by: { actor: facts.task.cancelRequestedBy ?? null, reason: facts.task.cancelReason ?? null },
    user_message: [
      userMessage(
        {
          settled,
          children: relevant,
          resources: { notReleased: orphaned.length, heldByRunningStep: held.length, beingReleased, mayBeHeld, serviceCouldNotSay: couldNotSay.length },
          findings: personFindings(facts),
          stoppedBy: { scope: facts.scope?.kind ?? StopScope.task, by: facts.task.cancelRequestedBy ?? null, reason: facts.task.cancelReason ?? null },
        },
        utcFormat,
      ),
      ...(since.length ? [`Since the Stop: ${since.map(({ item, since: s }) => sinceSentence(toolWords(item.toolName), s, utcFormat)).join(" ")}`] : []),
    ].join(" "),
  };
}

/** "reports.export_report" → "the export (reports.export_report)": plain enough for the API's message, exact for support. */
const toolWords = (toolName: string) => `The step ${toolName}`;

const iso = (t: Date | string | null | undefined) => (t == null ? null : new Date(t).toISOString());

import { Children, type ReactNode } from "react";
import { localWords } from "@/components/outcome-words";
import { inReaderZone } from "@/lib/outcomes/time";
import { orphanedResourceReviewSentence } from "@/lib/outcomes/review-words";
import { partialStopHeadline } from "@/lib/outcomes/headline";
import { cx } from "@/components/ui/cx";
import { Detail, Details } from "@/components/ui/details";
import { isOpenReview, ReviewItemKind } from "@/lib/ledger/states";
import {
  childFacts,
  OutcomeGroup,
  OutcomeKind,
  OUTCOME_WORDS,
  RESOURCE_WORDS,
  ResourceOutcome,
  sinceLine,
  stopFacts,
  toolResultText,
  verdictsOfTask,
  type ChildOutcome,
} from "@/lib/outcomes";
import { ranOnReviews } from "@/lib/review/ran-on-reviews";
import type { StopRequest } from "./turn-state";
import type { ReviewItem, SideEffect, Summary, TaskDetail } from "./api";
import { clock, SUMMARY_STATUS, toolLabel } from "./labels";

// scroll-mb: when scrolled into view, it clears the sticky message bar.
const FRAME = "scroll-mt-6 scroll-mb-44 rounded-card border px-4 py-3.5 shadow-xs";
const TONE_FRAME = {
  neutral: "border-line bg-surface",
  accent: "border-line bg-surface",
  ok: "border-ok/25 bg-ok-soft/60",
  warn: "border-warn/25 bg-warn-soft/60",
  danger: "border-danger/25 bg-danger-soft/60",
} as const;

/** The groups of the card, in the order a person reads them. */
const GROUPS: { group: OutcomeGroup; title: string; testId: string }[] = [
  { group: OutcomeGroup.couldNotStop, title: "Could not be stopped", testId: "unstoppable" },
  { group: OutcomeGroup.tookEffect, title: "Took effect", testId: "took-effect" },
  { group: OutcomeGroup.unknown, title: "Not known yet", testId: "uncertain" },
  { group: OutcomeGroup.stopped, title: "What stopped", testId: "stopped" },
  { group: OutcomeGroup.finished, title: "Finished", testId: "completed" },
  { group: OutcomeGroup.underWay, title: "Still being stopped", testId: "under-way" },
];

/**
 * What the Stop did, in plain words: the API's user message (derived from recorded facts, never guessed) and,
 * per step, its outcome in the one vocabulary (lib/outcomes) with times in the reader's clock. Ids and handles
 * sit behind "Details". While the API does not know yet, the card says so — it occupies the same place from
 * the moment Stop is pressed, so the page does not jump when the answer arrives.
 */
export function StopSummary({ summary, stop, detail }: { summary: Summary | null | undefined; stop: StopRequest | undefined; detail: TaskDetail | undefined }) {
  if (!summary && stop?.state === "already_finished") {
    return (
      <section aria-label="What the Stop did" data-testid="stop-summary" data-status="ALREADY_FINISHED" className={cx(FRAME, TONE_FRAME.neutral)}>
        <h3 className="text-sm font-semibold text-ink">Nothing to stop</h3>
        <p className="mt-1 text-sm text-ink" data-testid="user-message">
          {stop.message ?? "This request had already finished, and nothing of it is running. Nothing was changed."}
        </p>
      </section>
    );
  }
  if (!summary) {
    const failed = stop?.state === "failed";
    return (
      <section
        aria-label="What the Stop did"
        data-testid="stop-summary"
        data-status={failed ? "FAILED_TO_SEND" : "PENDING"}
        className={cx(FRAME, failed ? TONE_FRAME.danger : TONE_FRAME.warn)}
      >
        <h3 className={cx("text-sm font-semibold", failed ? "text-danger" : "text-warn")}>{failed ? "Stop was not recorded" : "Stopping…"}</h3>
        <p className="mt-1 text-sm text-ink">
          {failed
            ? `${stop?.error ?? "The server could not be reached."} Nothing was stopped yet — press Stop again.`
            : "Recording the Stop. No new step will start once it is recorded; then each running step is told to stop."}
        </p>
      </section>
    );
  }

  const base = SUMMARY_STATUS[summary.status] ?? { title: summary.status, tone: "neutral" as const };
  // Some work went on after the Stop (it could not be stopped, or did not stop in time): the heading says so.
  const ranOn = summary.tool_calls.some((c) => c.outcome.kind === OutcomeKind.couldNotStopFinished || c.outcome.kind === OutcomeKind.finishedAfterStop);
  const look =
    summary.status === "PARTIALLY_CANCELLED" && ranOn
      ? { title: "Stopped — but not everything stopped in time", tone: "warn" as const }
      : summary.status === "PARTIALLY_CANCELLED"
        ? {
            title: partialStopHeadline(
              summary.tool_calls.map((c) => c.outcome.kind),
              summary.orphaned_resources.length,
            ),
            tone: base.tone,
          }
        : base;
  const inProgress = summary.status === "IN_PROGRESS";
  // Grouped by the outcome AS SETTLED: what happened after the settlement is added below ("Since the Stop"), never
  // written over it (issue 20, item 4).
  const outcomes = detail ? verdictsOfTask(detail, Date.now()) : null;
  const since = summary.since_settlement ?? [];
  const ranOnLines = ranOnReviews(since, (t) => toolLabel(t));
  const rows = (detail?.workItems ?? []).map((item) => ({ item, outcome: outcomes!.get(item.id)! }));
  const review = (detail?.reviewItems ?? []).filter((r) => isOpenReview(r.status));

  return (
    <section aria-label="What the Stop did" data-testid="stop-summary" data-status={summary.status} className={cx(FRAME, TONE_FRAME[look.tone])}>
      <div className="flex flex-wrap items-baseline justify-between gap-x-3 gap-y-1">
        <h3 className={cx("text-sm font-semibold", look.tone === "ok" ? "text-ok" : look.tone === "danger" ? "text-danger" : "text-warn")}>{look.title}</h3>
        <span className="text-xs text-muted">Stop recorded at {clock(summary.cancel_requested_at)}</span>
      </div>
      <p className="mt-1.5 text-base leading-7 text-ink" data-testid="user-message">
        {inReaderZone(summary.user_message, Date.parse(summary.cancel_requested_at)).replace(/The step ([\w.]+):/g, (_, tool: string) => `${toolLabel(tool)}:`)}
      </p>

      <dl className="mt-3 space-y-3 text-sm">
        {outcomes ? (
          GROUPS.filter((g) => g.group !== OutcomeGroup.underWay || inProgress).map((g) => (
            <Group key={g.group} title={g.title} testId={g.testId}>
              {rows
                .filter((r) => OUTCOME_WORDS[r.outcome.kind].group === g.group && r.outcome.kind !== OutcomeKind.completedBeforeStop)
                .map((r) => (
                  <li key={r.item.id} data-outcome={r.outcome.kind}>
                    {line(r.item, r.outcome, detail!)}
                  </li>
                ))}
            </Group>
          ))
        ) : (
          <Group title="Each step" testId="steps">
            {summary.tool_calls.map((c) => (
              <li key={c.tool_call_id}>
                {toolLabel(c.tool_name)} — {inReaderZone(c.outcome.label, Date.parse(summary.cancel_requested_at))}
              </li>
            ))}
          </Group>
        )}
        <Group title="Since the Stop" testId="since-settlement">
          {since.map((x) => (
            <li key={x.tool_call_id} data-testid="since-line">
              {sinceLine(x.sentence, toolLabel(x.tool_name))}
            </li>
          ))}
        </Group>
        <Group title="Not released" testId="orphaned-resources">
          {summary.orphaned_resources.map((r) => (
            <li key={`${r.type}:${r.handle}`}>
              {resourceName(r.type)} of {toolLabel(r.tool_name).toLowerCase()} — {RESOURCE_WORDS[ResourceOutcome.notReleased].phrase}
            </li>
          ))}
          {summary.held_resources.map((r) => (
            <li key={`${r.type}:${r.handle}`}>
              {resourceName(r.type)} of {toolLabel(r.tool_name).toLowerCase()} — {RESOURCE_WORDS[ResourceOutcome.heldByRunningStep].phrase}
            </li>
          ))}
          {(summary.releasing_resources ?? []).map((r) => (
            <li key={`${r.type}:${r.handle}`}>
              {resourceName(r.type)} of {toolLabel(r.tool_name).toLowerCase()} — {RESOURCE_WORDS[ResourceOutcome.beingReleased].phrase}
            </li>
          ))}
          {(summary.unconfirmed_resources ?? []).map((r) => (
            <li key={`${r.tool_call_id}:${r.type}`} data-testid="unconfirmed-resource">
              {resourceName(r.type)} of {toolLabel(r.tool_name).toLowerCase()} — {RESOURCE_WORDS[r.outcome ?? ResourceOutcome.mayBeHeld].phrase}
            </li>
          ))}
        </Group>
        <Group title="Needs review" testId="needs-review">
          {ranOnLines.map((r) => (
            <li key={`ran-on-${r.key}`} data-testid="ran-on-review">
              {r.line}
            </li>
          ))}
          {review.length > 0
            ? review.map((r) => <li key={r.id}>{reviewSentence(r, detail!)}</li>)
            : summary.open_review_items > 0 && <li>{summary.open_review_items} item(s) wait for an operator&apos;s decision.</li>}
        </Group>
      </dl>
      {inProgress && <p className="mt-3 text-xs text-muted">This summary updates by itself as each step&apos;s outcome is established.</p>}
      <Details className="mt-3" testId="summary-details">
        <Detail term="task">{summary.task_id}</Detail>
        {summary.tool_calls.map((c) => (
          <Detail key={c.tool_call_id} term={c.tool_name}>
            {c.tool_call_id} · {c.status} · {c.outcome.kind}
          </Detail>
        ))}
        {[...summary.orphaned_resources, ...summary.held_resources, ...(summary.releasing_resources ?? [])].map((r) => (
          <Detail key={`${r.type}:${r.handle}`} term={r.type}>
            {r.handle}
          </Detail>
        ))}
        {summary.settled_at && <Detail term="settled">{summary.settled_at}</Detail>}
      </Details>
    </section>
  );
}

/**
 * "Exporting the report — stopped; 1,425 rows kept (partial)", "Placing the order — took effect: order ord_123 (…) went
 * through; a person decides by 17:09 whether to reverse it": the words the agent's model reads as the call's result
 * (lib/outcomes toolResultText, issue 25) — the person and the model are told the same thing.
 */
function line(item: TaskDetail["workItems"][number], outcome: ChildOutcome, detail: TaskDetail): string {
  const facts = {
    child: childFacts(item, { sideEffects: detail.sideEffects, reviewItems: detail.reviewItems, resources: detail.resources }, Date.now()),
    stop: stopFacts(detail),
    partialResult: item.partialResult,
    effects: detail.sideEffects.filter((e: SideEffect) => e.workItemId === item.id),
  };
  return `${toolLabel(item.toolName)} — ${toolResultText(facts, localWords, outcome)}`;
}

const resourceName = (type: string) => {
  const words = type.replaceAll("_", " ");
  return `The ${words}`;
};

/** One titled list; rendered only when it has entries. */
function Group({ title, testId, children }: { title: string; testId: string; children: ReactNode }) {
  const items = Children.toArray(children); // flattens the lists, drops false/null
  if (items.length === 0) return null;
  return (
    <div data-testid={`summary-${testId}`}>
      <dt className="text-xs font-semibold tracking-wide text-muted uppercase">{title}</dt>
      <dd>
        <ul className="mt-1 list-disc space-y-0.5 pl-5 text-ink marker:text-muted">{items}</ul>
      </dd>
    </div>
  );
}

/** A review item in the person's words: what an operator will decide about, and by when. */
function reviewSentence(item: ReviewItem, detail: TaskDetail): ReactNode {
  const effect = detail.sideEffects.find((e) => e.id === item.sideEffectId)?.description;
  const what = (item.proposal as { description?: unknown } | null)?.description;
  const step = detail.workItems.find((w) => w.id === item.workItemId);
  const subject = effect ?? (typeof what === "string" ? what : step ? toolLabel(step.toolName).toLowerCase() : "this step");
  const by = (
    <span className="text-muted">
      {" "}
      — by <span className="whitespace-nowrap">{clock(item.deadline)}</span>
    </span>
  );
  const text: Record<ReviewItemKind, string> = {
    [ReviewItemKind.approveCompensation]: `An operator decides whether to reverse ${subject}`,
    [ReviewItemKind.resolveUncertain]: effect ? `An operator finds out whether ${subject} took effect` : `An operator finds out what became of ${subject}`,
    [ReviewItemKind.orphanedResource]: orphanedResourceReviewSentence(detail.resources.find((r) => r.id === item.resourceId)?.type),
    [ReviewItemKind.orphanedSideEffect]: `An operator follows up on ${subject}, which cannot be undone`,
  };
  return (
    <>
      {text[item.kind as ReviewItemKind] ?? "An operator decides"}
      {by}
    </>
  );
}

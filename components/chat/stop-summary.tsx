import { Children, type ReactNode } from "react";
import { cx } from "@/components/ui/cx";
import { isOpenReview, ReviewItemKind } from "@/lib/ledger/states";
import type { StopRequest } from "./turn-state";
import type { ReviewItem, SideEffect, Summary } from "./api";
import { clock, SUMMARY_STATUS, toolLabel } from "./labels";
import { describePartial } from "./work-panel";

// scroll-mb: when scrolled into view, it clears the sticky message bar.
const FRAME = "scroll-mt-6 scroll-mb-44 rounded-card border px-4 py-3.5 shadow-xs";
const TONE_FRAME = {
  neutral: "border-line bg-surface",
  accent: "border-line bg-surface",
  ok: "border-ok/25 bg-ok-soft/60",
  warn: "border-warn/25 bg-warn-soft/60",
  danger: "border-danger/25 bg-danger-soft/60",
} as const;

/**
 * What the Stop did, in plain words: the API's user message (derived from recorded facts, never guessed)
 * and the lists behind it. While the API does not know yet, the card says so — it occupies the same place
 * from the moment Stop is pressed, so the page does not jump when the answer arrives.
 */
export function StopSummary({
  summary,
  stop,
  reviewItems,
  sideEffects,
}: {
  summary: Summary | null | undefined;
  stop: StopRequest | undefined;
  reviewItems: ReviewItem[];
  sideEffects: SideEffect[];
}) {
  if (!summary && stop?.state === "already_finished") {
    return (
      <section aria-label="What the Stop did" data-testid="stop-summary" data-status="ALREADY_FINISHED" className={cx(FRAME, TONE_FRAME.neutral)}>
        <h3 className="text-sm font-semibold text-ink">Nothing to stop</h3>
        <p className="mt-1 text-sm text-ink">This request had already finished before the Stop arrived; the steps above show how each ended.</p>
      </section>
    );
  }
  if (!summary) {
    const failed = stop?.state === "failed";
    return (
      <section aria-label="What the Stop did" data-testid="stop-summary" data-status={failed ? "FAILED_TO_SEND" : "PENDING"} className={cx(FRAME, failed ? TONE_FRAME.danger : TONE_FRAME.warn)}>
        <h3 className={cx("text-sm font-semibold", failed ? "text-danger" : "text-warn")}>{failed ? "Stop was not recorded" : "Stopping…"}</h3>
        <p className="mt-1 text-sm text-ink">
          {failed
            ? `${stop?.error ?? "The server could not be reached."} Nothing was stopped yet — press Stop again.`
            : "Recording the Stop. No new step will start once it is recorded; then each running step is told to stop."}
        </p>
      </section>
    );
  }

  const look = SUMMARY_STATUS[summary.status] ?? { title: summary.status, tone: "neutral" as const };
  const stopped = summary.cancelled_tool_calls.filter((c) => c.cancellation_status !== "UNRECOVERABLE");
  const unstoppable = summary.cancelled_tool_calls.filter((c) => c.cancellation_status === "UNRECOVERABLE");
  const orphanedResources = summary.cancelled_tool_calls.flatMap((c) => c.orphaned_resources.map((r) => ({ tool: c.tool_name, resource: r })));
  const review = reviewItems.filter((r) => isOpenReview(r.status));
  const inProgress = summary.status === "IN_PROGRESS";

  return (
    <section aria-label="What the Stop did" data-testid="stop-summary" data-status={summary.status} className={cx(FRAME, TONE_FRAME[look.tone])}>
      <div className="flex flex-wrap items-baseline justify-between gap-x-3 gap-y-1">
        <h3 className={cx("text-sm font-semibold", look.tone === "ok" ? "text-ok" : look.tone === "danger" ? "text-danger" : "text-warn")}>{look.title}</h3>
        <span className="text-xs text-muted">Stop recorded at {clock(summary.cancel_requested_at)}</span>
      </div>
      <p className="mt-1.5 text-base leading-7 text-ink" data-testid="user-message">
        {summary.user_message}
      </p>

      <dl className="mt-3 space-y-3 text-sm">
        <Group title="What stopped" testId="stopped">
          {stopped.map((c) => (
            <li key={c.tool_call_id}>
              {toolLabel(c.tool_name)} —{" "}
              {c.partial_result
                ? `stopped; ${describePartial(c.partial_result.value)} kept`
                : c.cancellation_status === "CANCELLED_INCOMPLETE"
                  ? "stopped; unfinished result discarded"
                  : "stopped"}
            </li>
          ))}
        </Group>
        <Group title="Could not be stopped" testId="unstoppable">
          {unstoppable.map((c) => (
            <li key={c.tool_call_id}>{toolLabel(c.tool_name)} — no way to stop it; watched until it finishes</li>
          ))}
        </Group>
        <Group title="Already took effect" testId="took-effect">
          {summary.orphaned_side_effects.map((e) => (
            <li key={e.tool_call_id + e.description}>{e.description}</li>
          ))}
        </Group>
        <Group title="Completed" testId="completed">
          {summary.completed_tool_calls.map((c) => (
            <li key={c.tool_call_id}>
              {toolLabel(c.tool_name)} — {c.status === "failed" ? "failed" : "finished"}
            </li>
          ))}
        </Group>
        <Group title="Still uncertain" testId="uncertain">
          {summary.uncertain_tool_calls.map((c) => (
            <li key={c.tool_call_id}>
              {toolLabel(c.tool_name)} — outcome not confirmed yet{c.reconcile_deadline ? `; we will know by ${clock(c.reconcile_deadline)}` : ""}
            </li>
          ))}
        </Group>
        <Group title="Not released" testId="orphaned-resources">
          {orphanedResources.map((r) => (
            <li key={r.resource}>
              <span className="font-mono text-xs">{r.resource}</span> ({toolLabel(r.tool)}) — an operator has been asked to handle it
            </li>
          ))}
        </Group>
        <Group title="Needs review" testId="needs-review">
          {review.length > 0
            ? review.map((r) => (
                <li key={r.id}>{reviewSentence(r, sideEffects)}</li>
              ))
            : summary.open_review_items > 0 && <li>{summary.open_review_items} item(s) wait for an operator&apos;s decision.</li>}
        </Group>
      </dl>
      {inProgress && <p className="mt-3 text-xs text-muted">This summary updates by itself as each step&apos;s outcome is established.</p>}
    </section>
  );
}

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
function reviewSentence(item: ReviewItem, sideEffects: SideEffect[]): ReactNode {
  const effect = sideEffects.find((e) => e.id === item.sideEffectId)?.description;
  const what = (item.proposal as { description?: unknown } | null)?.description;
  const subject = effect ?? (typeof what === "string" ? what : item.subject);
  const by = <span className="text-muted"> — by <span className="whitespace-nowrap">{clock(item.deadline)}</span></span>;
  const text: Record<ReviewItemKind, string> = {
    [ReviewItemKind.approveCompensation]: `An operator decides whether to reverse ${subject}`,
    [ReviewItemKind.resolveUncertain]: `An operator confirms whether ${subject} took effect`,
    [ReviewItemKind.orphanedResource]: `An operator releases what could not be released: ${subject}`,
    [ReviewItemKind.orphanedSideEffect]: `An operator follows up on ${subject}, which cannot be undone`,
  };
  return (
    <>
      {text[item.kind as ReviewItemKind] ?? item.subject}
      {by}
    </>
  );
}

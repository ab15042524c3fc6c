"use client";

import Link from "next/link";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { isOpenReview } from "@/lib/ledger/states";
import { fullTime, shortTime } from "../format";
import { CHANNEL_KIND_LABEL, deliveryState, REVIEW_KIND_LABEL, STATE_LOOK, TRIGGER_LOOK, type Delivery, type EscalationGroup } from "./types";

/** One card per escalated review item: what it is, why it was escalated, and every delivery of it per channel. */
export function EscalationCard({ group, all, now }: { group: EscalationGroup; all: Delivery[]; now: number }) {
  const item = group.reviewItem;
  const open = item ? isOpenReview(item.status) : false;
  const trigger = TRIGGER_LOOK[group.trigger] ?? { label: group.trigger, tone: "neutral" as const };
  const titleId = `escalation-${group.reviewItemId}`;
  return (
    <Card
      as="article"
      aria-labelledby={titleId}
      data-testid="escalation"
      data-review-item-id={group.reviewItemId}
      className={open ? "border-danger/30" : undefined}
    >
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0 flex-1">
          <p className="flex flex-wrap items-center gap-2 text-xs text-muted">
            <Badge tone={trigger.tone} data-testid="trigger">
              {trigger.label}
            </Badge>
            {item && <Badge tone="accent">{REVIEW_KIND_LABEL[item.kind] ?? item.kind}</Badge>}
            {item &&
              (open ? (
                <Badge tone="danger">Waiting for a decision</Badge>
              ) : (
                <Badge tone="ok" data-testid="closed">
                  Closed: {item.status}
                </Badge>
              ))}
          </p>
          <h3 id={titleId} className="mt-1.5 text-base font-semibold text-ink">
            {item?.subject ?? `Review item ${group.reviewItemId}`}
          </h3>
          <p className="mt-0.5 text-sm text-muted">
            Task{" "}
            <Link href={`/console/tasks/${encodeURIComponent(group.taskId)}`} className="font-medium text-accent hover:underline" data-testid="task-link">
              {group.task?.title ?? group.taskId}
            </Link>
          </p>
        </div>
        <div className="flex flex-col items-end gap-1 text-sm">
          {open && (
            <Link
              href={`/console/review?item=${encodeURIComponent(group.reviewItemId)}`}
              className="font-medium text-accent hover:underline"
              data-testid="review-link"
            >
              Decide in the review queue
            </Link>
          )}
          <Link href={`/console/tasks/${encodeURIComponent(group.taskId)}`} className="text-accent hover:underline">
            Open task
          </Link>
        </div>
      </div>

      <dl className="mt-3 grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
        <dt className="text-muted">Why</dt>
        <dd className="text-ink" data-testid="why">
          {whyText(group, item?.deadline)}
        </dd>
        {item && !open && (
          <>
            <dt className="text-muted">Decided</dt>
            <dd className="text-ink">
              {item.status}
              {item.decidedBy && <> by {item.decidedBy}</>}
              {item.decidedAt && (
                <>
                  {" "}
                  ·{" "}
                  <time dateTime={item.decidedAt} title={fullTime(item.decidedAt)}>
                    {shortTime(item.decidedAt)}
                  </time>
                </>
              )}
              {item.resolution && <span className="block text-xs text-muted">{item.resolution}</span>}
            </dd>
          </>
        )}
      </dl>

      <div className="relative mt-3 overflow-x-auto focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent" tabIndex={0}>
        <table className="w-full min-w-[40rem] text-left text-sm">
          <caption className="sr-only">Deliveries of this escalation, per channel</caption>
          <thead>
            <tr className="border-b border-line text-xs text-muted">
              <th scope="col" className="py-1.5 pr-3 font-medium">
                Channel
              </th>
              <th scope="col" className="py-1.5 pr-3 font-medium">
                Message
              </th>
              <th scope="col" className="py-1.5 pr-3 font-medium">
                Status
              </th>
              <th scope="col" className="py-1.5 pr-3 font-medium tabular-nums">
                Attempts
              </th>
              <th scope="col" className="py-1.5 font-medium">
                Details
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-line">
            {group.deliveries.map((d) => (
              <DeliveryRow key={d.id} delivery={d} all={all} now={now} />
            ))}
          </tbody>
        </table>
      </div>
    </Card>
  );
}

function whyText(group: EscalationGroup, deadline: string | undefined) {
  if (group.trigger === "deadline_passed" && deadline) {
    return (
      <>
        Nobody decided before the review deadline (
        <time dateTime={deadline} title={fullTime(deadline)}>
          {shortTime(deadline)}
        </time>
        ).
      </>
    );
  }
  if (group.trigger === "high_risk_orphan") return "A high-risk orphan: escalated as soon as it was found, without waiting for its deadline.";
  return group.reason ? `${group.reason.charAt(0).toUpperCase()}${group.reason.slice(1)}` : "Escalated.";
}

function DeliveryRow({ delivery: d, all, now }: { delivery: Delivery; all: Delivery[]; now: number }) {
  const state = deliveryState(d, all);
  const look = STATE_LOOK[state];
  return (
    <tr data-testid="delivery" data-kind={d.kind} data-state={state} data-delivery-id={d.id} className="align-top">
      <td className="py-2 pr-3">
        <span className="font-medium text-ink">{d.channel.name}</span>
        <span className="block text-xs text-muted">
          {CHANNEL_KIND_LABEL[d.channel.kind] ?? d.channel.kind}
          {!d.channel.active && " · removed"}
        </span>
      </td>
      <td className="py-2 pr-3 text-ink">
        {d.kind === "closed_out" ? "Close-out" : "Escalation"}
        {d.late && (
          <span
            className="block text-xs text-warn"
            data-testid="late"
            title="This channel was added after the item escalated; it received it then because the item was still open."
          >
            sent late — channel added after the escalation
          </span>
        )}
      </td>
      <td className="py-2 pr-3">
        <Badge tone={look.tone} data-testid="delivery-status">
          {look.label}
        </Badge>
      </td>
      <td className="py-2 pr-3 text-ink tabular-nums">{d.attempts}</td>
      <td className="py-2 text-xs text-muted">
        <DeliveryDetails delivery={d} state={state} now={now} />
      </td>
    </tr>
  );
}

function relative(iso: string, now: number) {
  const s = Math.round((Date.parse(iso) - now) / 1000);
  if (s <= 0) return "due now";
  if (s < 90) return `in ${s} s`;
  return `in ${Math.round(s / 60)} min`;
}

function DeliveryDetails({ delivery: d, state, now }: { delivery: Delivery; state: ReturnType<typeof deliveryState>; now: number }) {
  const at = (iso: string) => (
    <time dateTime={iso} title={fullTime(iso)}>
      {shortTime(iso)}
    </time>
  );
  return (
    <div className="space-y-1">
      {state === "delivered" && d.deliveredAt && (
        <p className="text-ink">
          Delivered {at(d.deliveredAt)}
          {d.responseStatus !== null && <> · HTTP {d.responseStatus}</>}
          {d.attempts > 1 && (
            <>
              {" "}
              · after {d.attempts - 1} failed {d.attempts - 1 === 1 ? "attempt" : "attempts"}
            </>
          )}
        </p>
      )}
      {state === "retrying" && (
        <p className="text-ink">
          Next attempt {at(d.nextAttemptAt)} ({relative(d.nextAttemptAt, now)})
        </p>
      )}
      {state === "sending" && <p className="text-ink">Queued {at(d.createdAt)}; being sent.</p>}
      {state === "waiting" && <p className="text-ink">Sent as soon as the escalation to this channel has gone out.</p>}
      {d.lastError && state !== "delivered" && (
        <p className={state === "failed" ? "text-danger" : "text-warn"} data-testid="last-error">
          {state === "failed" ? "" : "Last error: "}
          {d.lastError}
        </p>
      )}
      {(d.attemptLog.length > 0 || d.payload != null) && (
        <details className="group">
          <summary className="cursor-pointer text-accent hover:underline">Attempts and body</summary>
          {d.attemptLog.length > 0 && (
            <ol className="mt-1 space-y-0.5">
              {d.attemptLog.map((a) => (
                <li key={a.attempt} className="font-mono">
                  #{a.attempt} · {shortTime(a.at)} · {a.status === null ? "no answer" : `HTTP ${a.status}`} · {Math.round(a.durationMs)} ms
                  {a.error && <span className="block pl-4 text-warn">{a.error}</span>}
                </li>
              ))}
            </ol>
          )}
          <pre className="mt-1 max-h-64 overflow-auto rounded bg-canvas p-2 text-[11px] leading-4 text-ink">{JSON.stringify(d.payload, null, 2)}</pre>
        </details>
      )}
    </div>
  );
}

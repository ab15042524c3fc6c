"use client";

import { Badge } from "@/components/ui/badge";
import { cx } from "@/components/ui/cx";
import { WorkItemStatus } from "@/lib/ledger/states";
import type { Resource, SideEffect, TaskDetail, WorkItem } from "./api";
import { clock, duration, effectLook, itemLook, plural, resourceLook, toolLabel } from "./labels";
import { PHASE_LOOK, type TurnPhase } from "./turn-state";
import { useNow } from "./use-now";

/**
 * The steps (work items) of one request, each with its live status. Rows keep their size when a status
 * changes: the badge has a fixed width and the detail line is always there.
 */
export function WorkPanel({ detail, phase }: { detail: TaskDetail; phase: TurnPhase }) {
  const moving = detail.workItems.some((i) => itemLook(i.status).moving);
  const now = useNow(moving);
  const look = PHASE_LOOK[phase];
  return (
    <section aria-label="Steps of this request" data-testid="work-panel" className="rounded-card border border-line bg-surface shadow-xs">
      <header className="flex items-center justify-between gap-3 border-b border-line px-4 py-2.5">
        <h3 className="text-sm font-semibold text-ink">
          Steps <span className="font-normal text-muted">· {detail.workItems.length}</span>
        </h3>
        <Badge tone={look.tone} data-testid="turn-phase" className="min-w-24 justify-center">
          {look.label}
        </Badge>
      </header>
      {detail.workItems.length === 0 ? (
        <p className="px-4 py-3 text-sm text-muted">No steps were scheduled for this request.</p>
      ) : (
        <ul className="divide-y divide-line">
          {detail.workItems.map((item) => (
            <StepRow
              key={item.id}
              item={item}
              now={now}
              resources={detail.resources.filter((r) => r.workItemId === item.id)}
              effects={detail.sideEffects.filter((e) => e.workItemId === item.id)}
            />
          ))}
        </ul>
      )}
    </section>
  );
}

function StepRow({ item, now, resources, effects }: { item: WorkItem; now: number; resources: Resource[]; effects: SideEffect[] }) {
  const look = itemLook(item.status);
  return (
    <li data-testid="step" data-tool={item.toolName} data-status={item.status} className="relative grid grid-cols-[1fr_auto] items-start gap-x-4 px-4 py-3">
      <div className="min-w-0">
        <p className="text-sm font-medium text-ink">
          {toolLabel(item.toolName)} <span className="font-mono text-xs font-normal text-muted">{item.toolName}</span>
        </p>
        <p className="mt-0.5 min-h-5 text-sm text-muted" data-testid="step-detail">
          {stepDetail(item, now)}
        </p>
        {(resources.length > 0 || effects.length > 0) && (
          <ul className="mt-1.5 space-y-1 text-xs text-muted">
            {effects.map((e) => {
              const l = effectLook(e.outcome);
              return (
                <li key={e.id} className="flex flex-wrap items-center gap-1.5">
                  <Badge tone={l.tone}>{l.label}</Badge>
                  <span className="break-words text-ink">{e.description ?? `operation ${e.operationId}`}</span>
                  {!e.reversible && <span>· cannot be undone</span>}
                </li>
              );
            })}
            {resources.map((r) => {
              const l = resourceLook(r.state);
              return (
                <li key={r.id} className="flex flex-wrap items-center gap-1.5">
                  <Badge tone={l.tone}>{l.label}</Badge>
                  <span>
                    {r.type.replaceAll("_", " ")} <span className="font-mono break-all">{r.handle}</span>
                    {r.verifiedAt && <> · verified {clock(r.verifiedAt)}</>}
                  </span>
                </li>
              );
            })}
          </ul>
        )}
      </div>
      <Badge tone={look.tone} data-testid="step-status" className="min-w-28 justify-center gap-1.5">
        {look.moving && <span aria-hidden="true" className="size-1.5 animate-pulse rounded-full bg-current" />}
        {look.label}
      </Badge>
      {look.moving && item.progress?.total !== undefined && <ProgressBar done={item.progress.done} total={item.progress.total} />}
    </li>
  );
}

/** A thin bar along the row's bottom edge: it takes no room, so the row does not grow when progress arrives. */
function ProgressBar({ done, total }: { done: number; total: number }) {
  const percent = Math.max(0, Math.min(100, Math.round((done / total) * 100)));
  return (
    <div role="progressbar" aria-label="Progress of this step" aria-valuemin={0} aria-valuemax={100} aria-valuenow={percent} className="absolute inset-x-4 bottom-1 h-1 overflow-hidden rounded-full bg-line/60">
      <div className="h-full rounded-full bg-accent transition-[width] duration-200" style={{ width: `${percent}%` }} />
    </div>
  );
}

/** "1,200 of 3,000 rows (40%)", "step 3", "writing the file" — what the running code last said. */
export function progressText(progress: NonNullable<WorkItem["progress"]>): string {
  const n = (x: number) => x.toLocaleString("en");
  const counted = progress.total !== undefined
    ? `${n(progress.done)} of ${n(progress.total)}${progress.unit ? ` ${progress.unit}` : ""} (${Math.min(100, Math.round((progress.done / progress.total) * 100))}%)`
    : `${n(progress.done)}${progress.unit ? ` ${progress.unit}` : ""}`;
  return progress.message ? `${counted} · ${progress.message}` : counted;
}

/** One line on what the step is doing or how it ended, from the ledger's record of it. */
function stepDetail(item: WorkItem, now: number): string {
  const since = (iso: string | null) => (iso ? duration(now - Date.parse(iso)) : "");
  const took = item.startedAt && item.finishedAt ? ` in ${duration(Date.parse(item.finishedAt) - Date.parse(item.startedAt))}` : "";
  switch (item.status) {
    case WorkItemStatus.queued:
      return "Waiting to start.";
    case WorkItemStatus.running: {
      const running = item.startedAt && now - Date.parse(item.startedAt) >= 1_000 ? `Running for ${since(item.startedAt)}` : "Started just now";
      return item.progress ? `${running} · ${progressText(item.progress)}.` : `${running}.`;
    }
    case WorkItemStatus.submitted:
      return `The service accepted it ${since(item.submittedAt)} ago; waiting for the result.`;
    case WorkItemStatus.cancelling:
      return "Stop sent; finding out what it did.";
    case WorkItemStatus.unrecoverable:
      return "This step cannot be stopped; it is watched until it finishes.";
    case WorkItemStatus.uncertain:
      return item.reconcileDeadline
        ? `Outcome not confirmed yet; checking with the service (by ${clock(item.reconcileDeadline)}).`
        : "Outcome not confirmed yet; checking with the service.";
    case WorkItemStatus.completed:
      return `${completedDetail(item)}${took}.`;
    case WorkItemStatus.failed:
      return `Failed${item.error ? `: ${item.error}` : ""}.`;
    case WorkItemStatus.cancelled:
      return item.startedAt ? `Stopped after ${duration(Date.parse(item.finishedAt ?? item.updatedAt) - Date.parse(item.startedAt))}.` : "Never started.";
    case WorkItemStatus.partial:
      return `Stopped; ${partialDetail(item.partialResult)} kept.`;
    case WorkItemStatus.cancelledIncomplete:
      return "Stopped; its unfinished result was discarded.";
    default:
      return "";
  }
}

function completedDetail(item: WorkItem): string {
  const result = (item.result ?? {}) as Record<string, unknown>;
  if (Array.isArray(result.rows)) return `${plural(result.rows.length, "row")} exported`;
  if (typeof result.orderId === "string") return `Order ${result.orderId} placed`;
  if (typeof result.recordId === "string") return `Record ${result.recordId} created`;
  if (typeof result.messageId === "string") return `Email ${result.messageId} sent`;
  if (typeof result.text === "string") return "Reply written";
  return "Finished";
}

function partialDetail(value: unknown): string {
  const v = (value ?? {}) as Record<string, unknown>;
  if (Array.isArray(v.rows)) return `${plural(v.rows.length, "complete row")}`;
  return "a complete part of the result";
}

/** Used by the summary too: a partial result in words. */
export const describePartial = partialDetail;

export function StepsSkeleton() {
  return (
    <div aria-hidden="true" className={cx("rounded-card border border-line bg-surface shadow-xs")}>
      <div className="flex items-center justify-between border-b border-line px-4 py-2.5">
        <span className="h-4 w-16 animate-pulse rounded bg-line/70" />
        <span className="h-5 w-24 animate-pulse rounded-full bg-line/70" />
      </div>
      {[0, 1].map((i) => (
        <div key={i} className="flex items-center justify-between px-4 py-3">
          <span className="h-4 w-1/2 animate-pulse rounded bg-line/70" />
          <span className="h-5 w-28 animate-pulse rounded-full bg-line/70" />
        </div>
      ))}
    </div>
  );
}

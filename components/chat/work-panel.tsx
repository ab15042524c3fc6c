"use client";

import { outcomeBadge, outcomeSentence } from "@/components/outcome-words";
import { Badge } from "@/components/ui/badge";
import { cx } from "@/components/ui/cx";
import { Detail, Details } from "@/components/ui/details";
import { StepStop, stepStoppable } from "@/components/stop/step-stop";
import { OutcomeKind, outcomesOfTask, RESOURCE_WORDS, resourceOutcomeOf, rowsOf, stepStopSummary, verificationWord, type ChildOutcome } from "@/lib/outcomes";
import { localWords } from "@/components/outcome-words";
import type { Resource, SideEffect, TaskDetail, WorkItem } from "./api";
import { clock, duration, effectLook, itemLook, plural, toolLabel } from "./labels";
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
  // Each step's outcome in the one vocabulary (lib/outcomes), from the same ledger facts the API's summary reads.
  const outcomes = outcomesOfTask(detail, now);
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
              outcome={outcomes.get(item.id)!}
              now={now}
              resources={detail.resources.filter((r) => r.workItemId === item.id)}
              effects={detail.sideEffects.filter((e) => e.workItemId === item.id)}
              stoppable={stepStoppable(item, detail)}
              stopped={!!detail.cancelRequestedAt || !!item.stopRequestedAt}
              stoppedAlone={!!item.stopRequestedAt && !detail.cancelRequestedAt}
            />
          ))}
        </ul>
      )}
    </section>
  );
}

function StepRow({
  item,
  outcome,
  now,
  resources,
  effects,
  stoppable,
  stopped,
  stoppedAlone,
}: {
  item: WorkItem;
  outcome: ChildOutcome;
  now: number;
  resources: Resource[];
  effects: SideEffect[];
  stoppable: boolean;
  stopped: boolean;
  stoppedAlone: boolean;
}) {
  const look = outcomeBadge(outcome);
  // "Stop this step": once the step settled, what it did, in the vocabulary's words (issue 20 item 7).
  const stopSummary = stoppedAlone ? stepStopSummary({ label: toolLabel(item.toolName), outcome, rows: rowsOf(item) }, localWords) : null;
  return (
    <li
      data-testid="step"
      data-tool={item.toolName}
      data-status={item.status}
      data-outcome={outcome.kind}
      className="relative grid grid-cols-1 items-start gap-x-4 gap-y-1.5 px-4 py-3 sm:grid-cols-[1fr_auto]"
    >
      <div className="min-w-0">
        <p className="text-sm font-medium text-ink">{toolLabel(item.toolName)}</p>
        <p className="mt-0.5 min-h-5 text-sm text-muted" data-testid="step-detail">
          {stepDetail(item, outcome, now)}
        </p>
        {(resources.length > 0 || effects.length > 0) && (
          <ul className="mt-1.5 space-y-1 text-xs text-muted">
            {effects.map((e) => {
              const l = effectLook(e.outcome);
              return (
                <li key={e.id} className="flex flex-wrap items-center gap-1.5">
                  <Badge tone={l.tone}>{l.label}</Badge>
                  <span className="break-words text-ink">{e.description ?? "an action at the service"}</span>
                  {!e.reversible && <span>· cannot be undone</span>}
                </li>
              );
            })}
            {resources.map((r) => {
              // In the one vocabulary (lib/outcomes): "being released" once the step ended, "released" only when verified.
              const resourceOutcome = resourceOutcomeOf(r, item, stopped);
              const words = RESOURCE_WORDS[resourceOutcome];
              return (
                <li key={r.id} className="flex flex-wrap items-center gap-1.5" data-testid="step-resource">
                  <Badge tone={words.tone}>{words.short}</Badge>
                  <span>
                    {r.type.replaceAll("_", " ")}
                    {r.verifiedAt && (
                      <>
                        {" "}
                        · {verificationWord(resourceOutcome)} {clock(r.verifiedAt)}
                      </>
                    )}
                  </span>
                </li>
              );
            })}
          </ul>
        )}
        {stopSummary && (
          <p role="status" data-testid="step-stop-summary" className="mt-1.5 rounded-md border border-line bg-canvas px-2.5 py-1.5 text-sm text-ink">
            {stopSummary}
          </p>
        )}
        {stoppable && <StepStop workItemId={item.id} label={toolLabel(item.toolName)} />}
        <StepDetails item={item} resources={resources} effects={effects} />
      </div>
      <Badge
        tone={look.tone}
        data-testid="step-status"
        className="row-start-1 justify-self-start gap-1.5 sm:row-start-auto sm:min-w-28 sm:justify-center sm:justify-self-auto"
      >
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
    <div
      role="progressbar"
      aria-label="Progress of this step"
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={percent}
      className="absolute inset-x-4 bottom-1 h-1 overflow-hidden rounded-full bg-line/60"
    >
      <div className="h-full rounded-full bg-accent transition-[width] duration-200" style={{ width: `${percent}%` }} />
    </div>
  );
}

/** "1,200 of 3,000 rows (40%)", "step 3", "writing the file" — what the running code last said. */
export function progressText(progress: NonNullable<WorkItem["progress"]>): string {
  const n = (x: number) => x.toLocaleString("en");
  const counted =
    progress.total !== undefined
      ? `${n(progress.done)} of ${n(progress.total)}${progress.unit ? ` ${progress.unit}` : ""} (${Math.min(100, Math.round((progress.done / progress.total) * 100))}%)`
      : `${n(progress.done)}${progress.unit ? ` ${progress.unit}` : ""}`;
  return progress.message ? `${counted} · ${progress.message}` : counted;
}

/** What only operators and developers need: the tool, the ids, the handles, the service's own error. */
function StepDetails({ item, resources, effects }: { item: WorkItem; resources: Resource[]; effects: SideEffect[] }) {
  return (
    <Details className="mt-1.5">
      <Detail term="tool">{item.toolName}</Detail>
      <Detail term="tool call">{item.correlationId}</Detail>
      <Detail term="status">{item.status}</Detail>
      {item.error && <Detail term="error">{item.error}</Detail>}
      {effects.map((e) => (
        <Detail key={e.id} term="operation">
          {e.operationId}
          {e.externalRecordId && ` · record ${e.externalRecordId}`}
          {e.externalVersion && ` · version ${e.externalVersion}`}
        </Detail>
      ))}
      {resources.map((r) => (
        <Detail key={r.id} term={r.type.replaceAll("_", " ")}>
          {r.handle}
        </Detail>
      ))}
    </Details>
  );
}

/**
 * One line on what the step is doing or how it ended: the outcome in the vocabulary's words, with the facts a
 * person wants on top (how far it got, how many rows were kept).
 */
function stepDetail(item: WorkItem, outcome: ChildOutcome, now: number): string {
  const since = (iso: string | null) => (iso ? duration(now - Date.parse(iso)) : "");
  const took = item.startedAt && item.finishedAt ? ` in ${duration(Date.parse(item.finishedAt) - Date.parse(item.startedAt))}` : "";
  switch (outcome.kind) {
    case OutcomeKind.waiting:
      return "Waiting to start.";
    case OutcomeKind.running: {
      const running = item.startedAt && now - Date.parse(item.startedAt) >= 1_000 ? `Running for ${since(item.startedAt)}` : "Started just now";
      return item.progress ? `${running} · ${progressText(item.progress)}.` : `${running}.`;
    }
    case OutcomeKind.awaitingService:
      return `The service accepted it ${since(item.submittedAt)} ago; waiting for its answer.`;
    case OutcomeKind.stopping:
      return "Stop sent; finding out what it did.";
    case OutcomeKind.completed:
      return `${completedDetail(item)}${took}.`;
    case OutcomeKind.completedBeforeStop:
      return `${completedDetail(item)}${took}, before the Stop.`;
    case OutcomeKind.stoppedPartialKept:
      return `Stopped — ${partialDetail(item.partialResult)} kept.`;
    default:
      return outcomeSentence(outcome);
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

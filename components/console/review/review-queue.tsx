"use client";

import { useTasks } from "@/components/data/use-task";
import { useReviewItems } from "@/components/data/use-review-items";
import Link from "next/link";
import { useEffect, useMemo, useRef, useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { cx } from "@/components/ui/cx";
import { isUnauthorized } from "../api";
import { ConnectionStatus } from "../connection-status";
import { fullTime, shortTime } from "../format";
import { SectionTitle } from "../detail/states";
import { EmptyState, ErrorState, LoadingState, SessionEnded, StaleNotice } from "@/components/ui/states";
import { effectLabel, effectTone, resourceLabel, resourceTone, type ReviewItem, type TaskDetail } from "../detail/types";
import { outcomeBadge, outcomeSentence } from "@/components/outcome-words";
import { toolLabel } from "@/components/chat/labels";
import { outcomesOfTask } from "@/lib/outcomes";
import { useLedgerEvents } from "../use-ledger-events";
import { QueryKeys } from "@/components/data/query-keys";
import { deadlineWords } from "@/lib/review/deadline-words";
import { reviewChoices } from "@/lib/review/choices";
import { compensationConflict } from "@/lib/review/conflict";
import { useRefetchSoon } from "../use-refetch-soon";
import type { Capabilities } from "@/lib/auth/capabilities";
import { DecisionForm, ReadOnlyDecision, type Armed, type Decided } from "./decision-form";
import { ShortcutHelp, useQueueKeys } from "./queue-keys";

export const REVIEW_KEY = QueryKeys.reviewItems;
const OPEN = new Set(["open", "escalated"]);

export const KIND_LABEL: Record<string, string> = {
  approve_compensation: "Approve a compensation",
  resolve_uncertain: "Resolve an uncertain outcome",
  orphaned_resource: "Orphaned resource",
  orphaned_side_effect: "Irreversible side effect",
};

/**
 * The review queue: what only a person can decide, soonest deadline first, each with its evidence. The
 * decision forms are there only for people who may decide (`can.decideReviews`); others read the same
 * items and evidence, and are told who decides.
 */
export function ReviewQueue({ can, focusItem }: { can: Capabilities; focusItem?: string }) {
  const query = useReviewItems();
  const sessionEnded = isUnauthorized(query.error);
  const refetchSoon = useRefetchSoon([REVIEW_KEY, ["task"]], 200);
  const live = useLedgerEvents({
    enabled: !sessionEnded,
    onOpen: refetchSoon,
    onEvent: (e) => {
      if (e.type.startsWith("review_item.") || e.entityType === "sideEffect" || e.entityType === "resource") refetchSoon();
    },
  });

  const items = useMemo(() => query.data?.reviewItems ?? [], [query.data]);
  // Once the queue has loaded, bring the linked item into view and move the focus to it (once).
  const focused = useRef(false);
  useEffect(() => {
    if (!focusItem || focused.current || !query.data) return;
    focused.current = true;
    const target = document.getElementById(focusItem);
    if (!target) return;
    target.scrollIntoView({ block: "start" });
    target.focus({ preventScroll: true });
  }, [focusItem, query.data]);
  const open = items.filter((i) => OPEN.has(i.status));
  const decided = items
    .filter((i) => !OPEN.has(i.status))
    .sort((a, b) => Date.parse(b.decidedAt ?? b.updatedAt) - Date.parse(a.decidedAt ?? a.updatedAt))
    .slice(0, 20);
  const taskIds = [...new Set(items.map((i) => i.taskId))];
  const tasks = useTasks(taskIds);
  const taskById = new Map<string, TaskDetail>();
  for (const t of tasks) if (t.data) taskById.set(t.data.id, t.data);

  const [announcement, setAnnouncement] = useState("");
  const [lastDecided, setLastDecided] = useState<Record<string, Decided>>({});
  const openIds = open.map((i) => i.id);
  const keys = useQueueKeys(
    openIds,
    can.decideReviews,
    (id) => {
      const item = open.find((i) => i.id === id);
      if (!item) return { a: null, r: null };
      const effect = taskById.get(item.taskId)?.sideEffects.find((s) => s.id === item.sideEffectId);
      const conflict =
        item.kind === "approve_compensation" && !!compensationConflict(item.proposal as { expectedVersion?: string | null } | null, effect?.evidence);
      return reviewChoices({ kind: item.kind, conflict, effectKnown: !!effect }).keys;
    },
    (key) => setAnnouncement(key === "r" ? "This item has no Reject: r does nothing here." : "This item has no main action for a."),
  );
  const onDecided = (item: ReviewItem, result: Decided) => {
    setLastDecided((prev) => ({ ...prev, [item.id]: result }));
    setAnnouncement(result.message);
    // After a decision the next item takes the focus (the decided one leaves the list once the queue is re-read).
    if (result.ok) keys.moveOnFrom(item.id);
    refetchSoon();
  };

  return (
    <div className="space-y-4">
      <div className="flex flex-col items-start gap-3 sm:flex-row sm:items-end sm:justify-between">
        <div className="space-y-1">
          <h1 className="text-2xl font-semibold tracking-tight text-ink">Review queue</h1>
          <p className="text-sm text-muted">
            {can.decideReviews
              ? "What only a person can decide, soonest deadline first. Nothing here is executed until you decide it."
              : "What only a person can decide, soonest deadline first. Nothing here is executed until an operator decides it."}
          </p>
        </div>
        {!sessionEnded && <ConnectionStatus state={live} />}
      </div>
      {!can.decideReviews && (
        <p data-testid="read-only-notice" className="flex items-center gap-2 rounded-md border border-line bg-surface px-3 py-2 text-sm text-muted">
          <Badge tone="neutral">Read-only</Badge>
          Operators decide review items. You can read every item, its evidence and what a decision would do.
        </p>
      )}
      {can.decideReviews && <ShortcutHelp open={keys.helpOpen} onToggle={keys.toggleHelp} />}
      <p aria-live="polite" aria-atomic="true" data-testid="announcer" className="min-h-5 text-sm text-muted">
        {announcement}
      </p>

      {sessionEnded ? (
        <SessionEnded />
      ) : query.isPending ? (
        <LoadingState subject="reviewQueue" />
      ) : query.isError && !query.data ? (
        <ErrorState subject="reviewQueue" error={query.error} onRetry={() => void query.refetch()} />
      ) : (
        <>
          {query.isRefetchError && <StaleNotice subject="reviewQueue" error={query.error} />}
          <section aria-labelledby="open-title" className="space-y-3">
            <SectionTitle id="open-title" count={open.length}>
              Waiting for a decision
            </SectionTitle>
            {open.length === 0 ? (
              <EmptyState kind="reviewQueue" />
            ) : (
              <ol className="space-y-3">
                {open.map((item) => (
                  <li
                    key={item.id}
                    id={item.id}
                    tabIndex={-1}
                    data-linked={item.id === focusItem ? "" : undefined}
                    data-current={keys.current === item.id ? "" : undefined}
                    onFocus={(e) => {
                      if (e.target === e.currentTarget) keys.setCurrent(item.id);
                    }}
                    className={cx(
                      "scroll-mt-6 rounded-card outline-none focus-visible:ring-2 focus-visible:ring-accent focus-visible:ring-offset-2 focus-visible:ring-offset-canvas",
                      (item.id === focusItem || keys.current === item.id) && "ring-2 ring-accent ring-offset-2 ring-offset-canvas",
                    )}
                  >
                    <ReviewCard
                      item={item}
                      task={taskById.get(item.taskId)}
                      canDecide={can.decideReviews}
                      result={lastDecided[item.id]}
                      onDecided={(r) => onDecided(item, r)}
                      armed={keys.current === item.id ? keys.armed : null}
                    />
                  </li>
                ))}
              </ol>
            )}
          </section>
          {decided.length > 0 && (
            <section aria-labelledby="decided-title" className="space-y-2">
              <SectionTitle id="decided-title" count={decided.length}>
                Recently decided
              </SectionTitle>
              <ul className="divide-y divide-line overflow-hidden rounded-card border border-line bg-surface">
                {decided.map((item) => (
                  <li
                    key={item.id}
                    id={item.id}
                    tabIndex={item.id === focusItem ? -1 : undefined}
                    data-linked={item.id === focusItem ? "" : undefined}
                    data-testid="decided-item"
                    className="scroll-mt-6 outline-none data-linked:bg-accent-soft flex flex-wrap items-center gap-x-3 gap-y-1 px-5 py-2.5 text-sm"
                  >
                    <Badge tone={item.status === "rejected" ? "neutral" : "ok"}>{item.status}</Badge>
                    <span className="min-w-0 flex-1 truncate text-ink">{item.subject}</span>
                    <span className="text-xs text-muted">
                      {item.decidedBy ?? "engine"} {item.decidedAt && <>· {shortTime(item.decidedAt)}</>}
                      {item.resolution && <> · {item.resolution}</>}
                    </span>
                    {lastDecided[item.id] && <span className="w-full text-xs text-ok">{lastDecided[item.id].message}</span>}
                    <Link href={`/console/tasks/${item.taskId}`} className="text-xs text-accent hover:underline">
                      Task
                    </Link>
                  </li>
                ))}
              </ul>
            </section>
          )}
        </>
      )}
    </div>
  );
}

interface CardProps {
  item: ReviewItem;
  task?: TaskDetail;
  canDecide: boolean;
  result?: Decided;
  onDecided: (r: Decided) => void;
  armed: Armed | null;
}

function ReviewCard({ item, task, canDecide, result, onDecided, armed }: CardProps) {
  const now = Date.now();
  const overdue = Date.parse(item.deadline) < now;
  const workItem = task?.workItems.find((w) => w.id === item.workItemId);
  const effect = task?.sideEffects.find((s) => s.id === item.sideEffectId);
  const outcome = task && workItem ? outcomesOfTask(task, Date.now()).get(workItem.id) : undefined;
  const resource = task?.resources.find((r) => r.id === item.resourceId);
  const escalated = item.status === "escalated";
  return (
    <Card
      as="article"
      aria-labelledby={`title-${item.id}`}
      data-testid="review-item"
      data-kind={item.kind}
      className={escalated ? "border-danger/40" : overdue ? "border-warn/50" : undefined}
    >
      <div className="flex flex-wrap items-start justify-between gap-2">
        <div className="min-w-0">
          <p className="flex flex-wrap items-center gap-2 text-xs text-muted">
            <Badge tone="accent">{KIND_LABEL[item.kind] ?? item.kind}</Badge>
            {escalated && (
              <Badge tone="danger" data-testid="escalated">
                Escalated
              </Badge>
            )}
            <time dateTime={item.deadline} title={fullTime(item.deadline)} className={overdue ? "font-medium text-danger" : undefined}>
              {deadlineWords(item.deadline, now)}
            </time>
          </p>
          <h3 id={`title-${item.id}`} className="mt-1.5 text-base font-semibold text-ink">
            {item.subject}
          </h3>
        </div>
        <Link href={`/console/tasks/${item.taskId}`} className="text-sm text-accent hover:underline">
          Open task
        </Link>
      </div>

      <div className="mt-3 grid gap-4 md:grid-cols-2">
        <section aria-label="Evidence" className="space-y-2 text-sm">
          <h4 className="text-xs font-semibold tracking-wide text-muted uppercase">Evidence</h4>
          <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1">
            <dt className="text-muted">Task</dt>
            <dd className="min-w-0">
              {task ? (
                <>
                  <span className="text-ink">{task.title}</span>{" "}
                  <span className="text-xs text-muted">
                    · owner {task.ownerEmail ?? task.ownerId}
                    {task.cancelRequestedAt && <> · Stop {shortTime(task.cancelRequestedAt)}</>}
                  </span>
                </>
              ) : (
                <span className="font-mono text-xs text-muted">{item.taskId}</span>
              )}
            </dd>
            {workItem && (
              <>
                <dt className="text-muted">Work item</dt>
                <dd>
                  <span className="text-ink">{toolLabel(workItem.toolName)}</span>{" "}
                  {outcome && <Badge tone={outcomeBadge(outcome).tone}>{outcomeBadge(outcome).label}</Badge>}
                  {outcome && (
                    <span className="block text-xs text-ink" data-testid="review-outcome">
                      {outcomeSentence(outcome)}
                    </span>
                  )}
                  <span className="block font-mono text-xs text-muted">{workItem.toolName}</span>
                  {workItem.error && <span className="block text-xs text-muted">{workItem.error}</span>}
                </dd>
              </>
            )}
            {effect && (
              <>
                <dt className="text-muted">Side effect</dt>
                <dd>
                  <Badge tone={effectTone(effect.outcome)}>{effectLabel(effect.outcome)}</Badge>{" "}
                  <span className="text-xs text-muted">
                    operation <span className="font-mono text-ink">{effect.operationId}</span> · record{" "}
                    <span className="font-mono text-ink">{effect.externalRecordId ?? "—"}</span>
                    {effect.externalVersion && <> · version {effect.externalVersion}</>}
                    {!effect.reversible && " · irreversible"}
                  </span>
                </dd>
              </>
            )}
            {resource && (
              <>
                <dt className="text-muted">Resource</dt>
                <dd>
                  <Badge tone={resourceTone(resource.state)}>{resourceLabel(resource.state)}</Badge>{" "}
                  <span className="text-xs text-muted">
                    {resource.type} <span className="font-mono text-ink">{resource.handle}</span> · {resource.attempts} release attempts
                    {resource.verifiedAt && <> · checked {shortTime(resource.verifiedAt)}</>}
                  </span>
                </dd>
              </>
            )}
            <dt className="text-muted">Requested</dt>
            <dd className="text-xs text-muted">
              by {item.requestedBy ?? "the engine"} · {shortTime(item.createdAt)}
            </dd>
          </dl>
          {item.proposal != null && (
            <details className="text-xs">
              <summary className="cursor-pointer text-muted">The proposal as recorded</summary>
              <pre
                tabIndex={0}
                className="mt-1 overflow-x-auto rounded bg-canvas p-2 text-ink focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent"
              >
                {JSON.stringify(item.proposal, null, 2)}
              </pre>
            </details>
          )}
        </section>
        {canDecide ? (
          <DecisionForm item={item} effect={effect} result={result} onDecided={onDecided} armed={armed} />
        ) : (
          <ReadOnlyDecision item={item} effect={effect} />
        )}
      </div>
    </Card>
  );
}

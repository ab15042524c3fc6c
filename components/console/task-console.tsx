"use client";

import { useQueryClient, type InfiniteData, type QueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useMemo, useRef, useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { EmptyState, ErrorState, LoadingState, SessionEnded, StaleNotice } from "@/components/ui/states";
import type { Capabilities } from "@/lib/auth/capabilities";
import { isUnauthorized, TASKS_KEY, type LedgerEventRecord, type TaskList, type TaskRow } from "./api";
import { ConnectionStatus } from "./connection-status";
import { SignOutButton } from "./sign-out-button";
import { TaskFilters, type RiskFilter, type SortOrder, type StandingFilter } from "./task-filters";
import { TaskTable } from "./task-table";
import { isTaskStage } from "./task-stage";
import { TASK_STANDING_WORDS, TASK_STANDINGS } from "@/lib/outcomes";
import { sortNeedsMeFirst } from "@/lib/review/triage";
import { useNow } from "@/components/chat/use-now";
import { useRefetchSoon } from "./use-refetch-soon";
import { LedgerEvent } from "@/lib/ledger/events";
import { useLedgerEvents } from "./use-ledger-events";
import { applyToRow } from "@/components/data/apply-ledger-event";
import { useTaskList } from "@/components/data/use-task-list";
import { QueryKeys } from "@/components/data/query-keys";

type Pages = InfiniteData<TaskList>;
/** The review queue's query (same key and shape as the review page's): which tasks wait for a person. */
const REVIEW_KEY = QueryKeys.reviewItems;

/**
 * The live task list. GET /api/tasks fills it; every ledger event from GET /api/events updates it
 * without a reload: a task event patches that task's stage at once (its toState is the new stage), and
 * every event schedules one refetch shortly after, which brings the rest (work item counts, cancel
 * time) from the API. Status, needs-review, risk and search filters work on the loaded tasks. The list has
 * no write control; a principal who may neither stop nor decide (support) is told the console is read-only.
 */
export function TaskConsole({ signedInAs, can }: { signedInAs: string; can: Capabilities }) {
  const queryClient = useQueryClient();
  const query = useTaskList();

  const sessionEnded = isUnauthorized(query.error);
  const refetchSoon = useRefetchSoon([TASKS_KEY, REVIEW_KEY]);
  const live = useLedgerEvents({
    enabled: !sessionEnded,
    onOpen: refetchSoon, // events during a disconnection, or before the stream opened, are fetched
    onGiveUp: refetchSoon, // the stream was refused: a 401 here shows "sign in again" instead of "reconnecting…"
    onEvent: (event) => {
      patchTaskStage(queryClient, event);
      // Progress reports (several a second per running child) and administrative events change no row.
      if (event.taskId !== null && event.type !== LedgerEvent.workItemProgress) refetchSoon();
    },
  });

  const tasks = useMemo(() => uniqueTasks(query.data), [query.data]);
  const { announcement, highlighted } = useStageChanges(tasks, query.isSuccess);

  const [standing, setStanding] = useState<StandingFilter>("all");
  const [risk, setRisk] = useState<RiskFilter>("any");
  const [needsReview, setNeedsReview] = useState(false);
  const [search, setSearch] = useState("");
  const [sort, setSort] = useState<SortOrder>("needs_me");
  // Deadlines move from "due soon" to "overdue" while the page is open: the order follows the clock.
  const now = useNow(true, 30_000);
  const counts = useMemo(() => countByStanding(tasks), [tasks]);
  const needsReviewCount = tasks.filter((t) => t.awaitingDecision > 0).length;
  const visible = useMemo(() => {
    const needle = search.trim().toLocaleLowerCase();
    const shown = tasks.filter(
      (t) =>
        (standing === "all" || t.standing === standing) &&
        (risk === "any" || t.riskLevel === risk) &&
        (!needsReview || t.awaitingDecision > 0) &&
        (!needle || matches(t, needle)),
    );
    return sort === "needs_me" ? sortNeedsMeFirst(shown, now) : shown;
  }, [tasks, standing, risk, needsReview, search, sort, now]);
  const clearFilters = () => {
    setStanding("all");
    setRisk("any");
    setNeedsReview(false);
    setSearch("");
  };

  return (
    <div className="space-y-4">
      <div className="flex flex-col gap-4 sm:flex-row sm:items-end sm:justify-between">
        <div className="space-y-1">
          <h1 className="text-2xl font-semibold tracking-tight text-ink">Tasks</h1>
          <p className="text-sm text-muted">Every task agents created — what needs you first, updated live from the ledger.</p>
        </div>
        <div className="flex flex-wrap items-center gap-3">
          {!sessionEnded && <ConnectionStatus state={live} />}
          <span className="text-sm text-muted">
            Signed in as <span className="font-medium text-ink">{signedInAs}</span>
          </span>
          {!can.stop && !can.decideReviews && (
            <Badge tone="neutral" title="You can read every task, review item and audit; operators decide and stop." data-testid="read-only-badge">
              Read-only
            </Badge>
          )}
          <SignOutButton />
        </div>
      </div>

      {/* Announces stage changes to screen readers; sighted users see the latest one here too. */}
      <p aria-live="polite" aria-atomic="true" data-testid="announcer" className="min-h-5 text-sm text-muted">
        {announcement?.text}
      </p>

      {sessionEnded ? (
        <SessionEnded />
      ) : query.isPending ? (
        <LoadingState subject="taskList" shape="rows" />
      ) : query.isError && !query.data ? (
        <ErrorState subject="taskList" error={query.error} onRetry={() => void query.refetch()} />
      ) : tasks.length === 0 ? (
        <EmptyState kind="taskList" mark testId="tasks-empty">
          <Link href="/api-docs" className="font-medium text-accent underline-offset-4 hover:underline">
            Read the API docs →
          </Link>
        </EmptyState>
      ) : (
        <section aria-label="Task list" className="overflow-hidden rounded-card border border-line bg-surface shadow-xs">
          <TaskFilters
            standing={standing}
            onStandingChange={setStanding}
            sort={sort}
            onSortChange={setSort}
            risk={risk}
            onRiskChange={setRisk}
            needsReview={needsReview}
            onNeedsReviewChange={setNeedsReview}
            needsReviewCount={needsReviewCount}
            search={search}
            onSearchChange={setSearch}
            counts={counts}
          />
          {query.isRefetchError && <StaleNotice subject="taskList" error={query.error} className="rounded-none border-b border-line px-5" />}
          {visible.length > 0 ? (
            <TaskTable tasks={visible} highlighted={highlighted} now={now} />
          ) : (
            <EmptyState kind="taskListFiltered" className="rounded-none border-0">
              <Button variant="ghost" size="sm" onClick={clearFilters}>
                Clear filters
              </Button>
            </EmptyState>
          )}
          <div className="flex items-center justify-between gap-3 border-t border-line px-5 py-2.5 text-xs text-muted">
            <span>
              {visible.length === tasks.length ? `${tasks.length} ${tasks.length === 1 ? "task" : "tasks"}` : `${visible.length} of ${tasks.length} tasks`}
              {query.hasNextPage && " loaded"}
            </span>
            {query.hasNextPage && (
              <Button variant="ghost" size="sm" onClick={() => void query.fetchNextPage()} disabled={query.isFetchingNextPage}>
                {query.isFetchingNextPage ? "Loading…" : "Load older tasks"}
              </Button>
            )}
          </div>
        </section>
      )}
    </div>
  );
}

// ---- live updates --------------------------------------------------------------------------------

/**
 * Task events carry the new stage as toState: show it at once, before the refetch confirms it. A Stop's
 * stage is shown as "stopping" until the refetch brings its settled summary status: never settled early.
 */
function patchTaskStage(queryClient: QueryClient, event: LedgerEventRecord) {
  if (event.entityType !== "task" || !event.taskId || !isTaskStage(event.toState)) return;
  const stage = event.toState;
  queryClient.setQueryData<Pages>(
    TASKS_KEY,
    (data) =>
      data && {
        ...data,
        pages: data.pages.map((page) => ({
          ...page,
          tasks: page.tasks.map((task) => (task.id === event.taskId ? applyToRow(task, event) : task)),
        })),
      },
  );
}

/**
 * Compares each new version of the list with the previous one: a changed stage or a new task is
 * announced (aria-live) and its row briefly highlighted — whether the change came from an event or
 * from a refetch after a reconnection.
 */
function useStageChanges(tasks: TaskRow[], loaded: boolean) {
  const previous = useRef<Map<string, { standing: TaskRow["standing"]; createdAt: string }> | null>(null);
  const [announcement, setAnnouncement] = useState<{ text: string; at: number } | null>(null);
  const [highlighted, setHighlighted] = useState<ReadonlySet<string>>(new Set());
  const timers = useRef(new Set<ReturnType<typeof setTimeout>>());
  useEffect(() => {
    const pending = timers.current;
    return () => pending.forEach(clearTimeout);
  }, []);

  useEffect(() => {
    if (!loaded) return;
    const before = previous.current;
    previous.current = new Map(tasks.map((t) => [t.id, { standing: t.standing, createdAt: t.createdAt }]));
    if (!before) return; // the first load is not news

    // A task older than everything already known came from "Load older tasks", not from an agent.
    const newest = Math.max(0, ...[...before.values()].map((t) => Date.parse(t.createdAt)));
    const messages: string[] = [];
    const changed: string[] = [];
    for (const task of tasks) {
      const was = before.get(task.id);
      if (!was && Date.parse(task.createdAt) >= newest) {
        messages.push(`New task “${task.title}”: ${TASK_STANDING_WORDS[task.standing].sentence}`);
        changed.push(task.id);
      } else if (was && was.standing !== task.standing) {
        messages.push(`“${task.title}”: ${TASK_STANDING_WORDS[task.standing].sentence}`);
        changed.push(task.id);
      }
    }
    if (!changed.length) return;
    setAnnouncement({ text: messages.slice(0, 3).join(" ") + (messages.length > 3 ? ` And ${messages.length - 3} more changes.` : ""), at: Date.now() });
    setHighlighted((current) => new Set([...current, ...changed]));
    const timer = setTimeout(() => {
      timers.current.delete(timer);
      setHighlighted((current) => new Set([...current].filter((id) => !changed.includes(id))));
    }, 2_500);
    timers.current.add(timer);
  }, [tasks, loaded]);

  return { announcement, highlighted };
}

// ---- derived data ----------------------------------------------------------------------------------

function uniqueTasks(data: Pages | undefined): TaskRow[] {
  if (!data) return [];
  const byId = new Map<string, TaskRow>();
  for (const page of data.pages) for (const task of page.tasks) if (!byId.has(task.id)) byId.set(task.id, task);
  return [...byId.values()];
}

/** The search: the title, the task id, the conversation, the owner (e-mail or id) and the tools its steps called. */
function matches(task: TaskRow, needle: string) {
  return [task.title, task.id, task.conversationId ?? "", task.ownerId, task.ownerEmail ?? "", ...task.tools].some((text) =>
    text.toLocaleLowerCase().includes(needle),
  );
}

function countByStanding(tasks: TaskRow[]): Record<StandingFilter, number> {
  const counts = Object.fromEntries([["all", tasks.length], ...TASK_STANDINGS.map((s) => [s, 0])]) as Record<StandingFilter, number>;
  for (const task of tasks) counts[task.standing] += 1;
  return counts;
}

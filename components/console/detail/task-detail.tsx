"use client";

import { useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useMemo } from "react";
import { applyToTask } from "@/components/data/apply-ledger-event";
import { QueryKeys } from "@/components/data/query-keys";
import { useTask } from "@/components/data/use-task";
import { Card } from "@/components/ui/card";
import { EmptyState, ErrorState, LoadingState, SessionEnded, StaleNotice } from "@/components/ui/states";
import type { Capabilities } from "@/lib/auth/capabilities";
import { LedgerEvent } from "@/lib/ledger/events";
import { StoredProgress } from "@/lib/ledger/progress";
import { isTerminalItem } from "@/lib/ledger/states";
import { outcomesOfTask, type ChildOutcome } from "@/lib/outcomes";
import { isUnauthorized, type LedgerEventRecord } from "../api";
import { useRefetchSoon } from "../use-refetch-soon";
import { EventHistory } from "./event-history";
import { PlanCard } from "./plan-card";
import { SectionTitle } from "./states";
import { StepOutcomes } from "./step-outcomes";
import { useAnnouncement, useNow } from "./task-detail-hooks";
import { TaskEffects } from "./task-effects";
import { TaskHeader } from "./task-header";
import { TaskResources } from "./task-resources";
import { TaskReviews } from "./task-reviews";
import { Timeline } from "./timeline";
import type { TaskDetail } from "./types";
import { useTaskEvents } from "./use-task-events";

export const taskKey = QueryKeys.task;

/**
 * One task, live: the timeline, what it holds and changed, the cancellation plan and its steps, every event. Each
 * section is its own file in this folder; this one loads the task, follows its events and lays the sections out.
 * Stop is offered only to people who may stop (`can.stop`), and only while the task is still active.
 */
export function TaskDetailView({ taskId, can }: { taskId: string; can: Capabilities }) {
  const queryClient = useQueryClient();
  const query = useTask(taskId);
  const notFound = (query.error as { status?: number } | null)?.status === 404;
  const sessionEnded = isUnauthorized(query.error);

  const refetchSoon = useRefetchSoon([taskKey(taskId)]);
  // Progress carries all it changes (and comes up to four times a second): patch it in, refetch for the rest.
  const onEvent = (event: LedgerEventRecord) => {
    const progress = event.type === LedgerEvent.workItemProgress ? StoredProgress.safeParse(event.data) : null;
    if (!progress) return refetchSoon();
    if (progress.success) queryClient.setQueryData<TaskDetail>(taskKey(taskId), (t) => t && applyToTask(t, event));
  };
  const { events, state } = useTaskEvents(taskId, onEvent, !notFound && !sessionEnded);

  const task = query.data;
  const settled = !!task && task.workItems.every((w) => isTerminalItem(w.status));
  const now = useNow(!settled);
  // Each step's outcome in the one vocabulary (lib/outcomes), from the same ledger facts as the API's summary.
  const outcomes = useMemo(() => (task ? outcomesOfTask(task, now) : new Map<string, ChildOutcome>()), [task, now]);
  const announcement = useAnnouncement(task);

  if (sessionEnded) return <SessionEnded />;
  if (notFound) {
    return (
      <EmptyState kind="taskMissing">
        <Link href="/console" className="font-medium text-accent underline-offset-4 hover:underline">
          Back to all tasks
        </Link>
      </EmptyState>
    );
  }
  if (query.isPending) return <LoadingState subject="task" />;
  if (!task) return <ErrorState subject="task" error={query.error} onRetry={() => void query.refetch()} />;

  const toolOf = new Map(task.workItems.map((w) => [w.id, w.toolName]));
  return (
    <div className="space-y-4">
      <TaskHeader task={task} can={can} state={state} onChanged={refetchSoon} />

      <p aria-live="polite" aria-atomic="true" data-testid="announcer" className="min-h-5 text-sm text-muted">
        {announcement}
      </p>
      {query.isRefetchError && <StaleNotice subject="task" error={query.error} />}

      <div className="grid grid-cols-[minmax(0,1fr)] gap-4 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
        <div className="space-y-4">
          <Card as="section" aria-labelledby="timeline-title">
            <SectionTitle id="timeline-title" count={task.workItems.length}>
              Timeline
            </SectionTitle>
            <div className="mt-6">
              <Timeline task={task} now={now} outcomes={outcomes} />
            </div>
          </Card>

          <StepOutcomes task={task} outcomes={outcomes} can={can} />

          <PlanCard task={task} events={events} toolOf={toolOf} />
        </div>

        <div className="space-y-4">
          <TaskResources task={task} toolOf={toolOf} />

          <TaskEffects task={task} toolOf={toolOf} />

          <TaskReviews task={task} can={can} />
        </div>
      </div>

      <EventHistory events={events} />
    </div>
  );
}

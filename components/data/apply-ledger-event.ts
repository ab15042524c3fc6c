import { LedgerEvent } from "@/lib/ledger/events";
import { StoredProgress } from "@/lib/ledger/progress";
import { isItemStatus } from "@/components/labels";
import { isTaskStage } from "@/components/console/task-stage";
import { SummaryStatus, taskStanding, type TaskStanding } from "@/lib/outcomes";

/**
 * The one reducer that applies a ledger event to cached state, for every page (the chat, the console's task list and
 * its task detail): what an event carries is shown at once; the refetch each page schedules brings the rest.
 * - progress reports patch the work item's progress (never an older report over a newer one);
 * - a work item's state change patches its status (an event older than the row is history replayed: not applied);
 * - a task's stage change patches the stage and, for a Stop, its time; on a list row also its standing — a Stop is
 *   "stopping" until the refetch brings its settled summary status (never shown settled early).
 * Pure: returns the same object when the event changes nothing.
 */
export interface EventLike {
  type: string;
  entityType: string;
  workItemId: string | null;
  toState: string | null;
  data: unknown;
  createdAt: string;
}

interface WorkItemLike {
  id: string;
  status: string;
  updatedAt: string;
  progress?: unknown;
}
interface TaskLike<W extends WorkItemLike> {
  stage: string;
  updatedAt: string;
  cancelRequestedAt: string | null;
  workItems: W[];
}

export function applyToTask<W extends WorkItemLike, T extends TaskLike<W>>(task: T, event: EventLike): T {
  const at = Date.parse(event.createdAt);
  if (event.type === LedgerEvent.workItemProgress) {
    const progress = StoredProgress.safeParse(event.data);
    if (!progress.success) return task;
    return {
      ...task,
      workItems: task.workItems.map((i) =>
        i.id === event.workItemId && (!i.progress || Date.parse((i.progress as { at: string }).at) <= Date.parse(progress.data.at))
          ? { ...i, progress: progress.data }
          : i,
      ),
    };
  }
  if (event.entityType === "workItem" && event.workItemId && isItemStatus(event.toState)) {
    const status = event.toState;
    if (!task.workItems.some((i) => i.id === event.workItemId && at >= Date.parse(i.updatedAt))) return task;
    return {
      ...task,
      workItems: task.workItems.map((i) => (i.id === event.workItemId && at >= Date.parse(i.updatedAt) ? { ...i, status, updatedAt: event.createdAt } : i)),
    };
  }
  if (event.entityType === "task" && isTaskStage(event.toState) && at >= Date.parse(task.updatedAt)) {
    const stage = event.toState;
    return { ...task, stage, updatedAt: event.createdAt, cancelRequestedAt: task.cancelRequestedAt ?? (stage === "cancel_requested" ? event.createdAt : null) };
  }
  return task;
}

interface RowLike {
  stage: string;
  standing: TaskStanding;
  stopStatus: SummaryStatus | null;
}

/** A task list row: its stage and standing (a row carries no work items; the refetch brings the counts). */
export function applyToRow<R extends RowLike>(row: R, event: EventLike): R {
  if (event.entityType !== "task" || !isTaskStage(event.toState)) return row;
  const stage = event.toState;
  const stopping = stage === "cancel_requested" || stage === "cancelled";
  const endReason = stage === "failed" ? ((event.data as { error?: string } | null)?.error ?? null) : null;
  return { ...row, stage, standing: taskStanding({ stage, stopStatus: stopping ? (row.stopStatus ?? SummaryStatus.inProgress) : row.stopStatus, endReason }) };
}

"use client";

import Link from "next/link";
import { RequestReversal } from "@/components/request-reversal";
import { StopEverything } from "@/components/stop/stop-everything";
import { Badge } from "@/components/ui/badge";
import { Detail, Details } from "@/components/ui/details";
import { acceptsNewWork, isTerminalTask, TaskStage } from "@/lib/ledger/states";
import type { Capabilities } from "@/lib/auth/capabilities";
import { refusalOf, refusalSentence } from "@/lib/outcomes/task-standing";
import { ConnectionStatus } from "../connection-status";
import type { LiveState } from "../use-ledger-events";
import { fullTime, shortTime } from "../format";
import { taskStageLabel, taskStageTone } from "../task-stage";
import { StopTask } from "./stop-task";
import type { TaskDetail } from "./types";

/**
 * The task's head: title, stage, owner and risk; the Stop and where the engine stands (or how the task ended); the
 * live connection, the audit link and the Stop controls of people who may stop.
 */
export function TaskHeader({ task, can, state, onChanged }: { task: TaskDetail; can: Capabilities; state: LiveState; onChanged: () => void }) {
  return (
    <div className="flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
      <div className="min-w-0 space-y-1">
        <p className="text-sm">
          <Link href="/console" className="text-accent hover:underline">
            ← All tasks
          </Link>
        </p>
        <h1 className="text-2xl font-semibold tracking-tight text-ink">{task.title}</h1>
        <p className="flex flex-wrap items-center gap-x-3 gap-y-1 text-sm text-muted">
          <Badge tone={taskStageTone(task)} data-testid="task-stage">
            {taskStageLabel(task)}
          </Badge>
          <span>
            owner{" "}
            <Link
              href={`/audit?user=${encodeURIComponent(task.ownerId)}`}
              className="font-medium text-ink underline decoration-line underline-offset-2 hover:decoration-accent"
              title="Everything this owner's agents changed, in the audit"
            >
              {task.ownerEmail ?? task.ownerId}
            </Link>
          </span>
          <span>risk {task.riskLevel}</span>
        </p>
        <Details>
          <Detail term="task">{task.id}</Detail>
          {task.conversationId && <Detail term="conversation">{task.conversationId}</Detail>}
          {task.turnId && <Detail term="turn">{task.turnId}</Detail>}
          <Detail term="intent version">{task.intentVersion}</Detail>
        </Details>
        {task.cancelRequestedAt && (
          <p className="text-sm text-ink">
            <span className="font-medium text-stop">Stop</span> at{" "}
            <time dateTime={task.cancelRequestedAt} title={fullTime(task.cancelRequestedAt)}>
              {shortTime(task.cancelRequestedAt)}
            </time>
            {task.cancelRequestedBy && <> by {task.cancelRequestedBy}</>}
            {task.cancelReason && <> — “{task.cancelReason}”</>}.{" "}
            <span data-testid="settlement" className="text-muted">
              {task.settledAt ? (
                <>
                  Settled at{" "}
                  <time dateTime={task.settledAt} title={fullTime(task.settledAt)}>
                    {shortTime(task.settledAt)}
                  </time>
                  : every step was stopped or handed over, and the checks have run.
                </>
              ) : (
                "The engine is still finding out what each step did."
              )}
            </span>
          </p>
        )}
        {!task.cancelRequestedAt && isTerminalTask(task.stage) && (
          <p className="text-sm text-ink" data-testid="task-ended">
            {refusalOf(task) !== null ? "Refused" : task.stage === TaskStage.failed ? "Failed" : "Completed"}
            {task.endedAt && (
              <>
                {" "}
                at{" "}
                <time dateTime={task.endedAt} title={fullTime(task.endedAt)}>
                  {shortTime(task.endedAt)}
                </time>
              </>
            )}
            {refusalOf(task) !== null ? <> — {refusalSentence(refusalOf(task)!)}</> : task.endReason && <> — {task.endReason}</>} Nothing of it is running: Stop
            has nothing to stop.
          </p>
        )}
      </div>
      <div className="flex flex-col items-start gap-3 sm:items-end">
        <div className="flex flex-wrap items-center gap-3">
          <ConnectionStatus state={state} />
          <Link href={`/audit?taskId=${encodeURIComponent(task.id)}`} className="text-sm text-accent hover:underline">
            Audit of this task
          </Link>
        </div>
        {can.stop && acceptsNewWork(task.stage) && !task.cancelRequestedAt && <StopTask taskId={task.id} title={task.title} onStopped={onChanged} />}
        {can.stop && task.conversationId && <StopEverything reach={{ conversationId: task.conversationId }} onStopped={onChanged} />}
        {can.stop && <StopEverything reach={{ ownerId: task.ownerId }} onStopped={onChanged} />}
        {can.stop && isTerminalTask(task.stage) && <RequestReversal detail={task} onRequested={onChanged} />}
      </div>
    </div>
  );
}

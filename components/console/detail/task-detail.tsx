"use client";

import { useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useMemo, useRef, useState } from "react";
import { outcomeBadge, outcomeSentence } from "@/components/outcome-words";
import { RequestReversal } from "@/components/request-reversal";
import { toolLabel } from "@/components/chat/labels";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { Detail, Details } from "@/components/ui/details";
import { outcomesOfTask, RESOURCE_WORDS, resourceOutcomeOf, type ChildOutcome } from "@/lib/outcomes";
import type { Capabilities } from "@/lib/auth/capabilities";
import { StoredProgress } from "@/lib/ledger/progress";
import { acceptsNewWork, isTerminalItem, isTerminalTask, TaskStage } from "@/lib/ledger/states";
import { isUnauthorized, type LedgerEventRecord } from "../api";
import { ConnectionStatus } from "../connection-status";
import { fullTime, shortTime } from "../format";
import { taskStageLabel, taskStageTone } from "../task-stage";
import { refusalOf, refusalSentence } from "@/lib/outcomes/task-standing";
import { SectionTitle } from "./states";
import { EmptyState, ErrorState, LoadingState, SessionEnded, StaleNotice } from "@/components/ui/states";
import { loadWords } from "@/components/state-words";
import { StopTask } from "./stop-task";
import { SinceStop } from "@/components/since-stop";
import { StepStop, stepStoppable } from "@/components/stop/step-stop";
import { StopEverything } from "@/components/stop/stop-everything";
import { Timeline } from "./timeline";
import { effectLabel, effectTone, type TaskDetail } from "./types";
import { applyToTask } from "@/components/data/apply-ledger-event";
import { QueryKeys } from "@/components/data/query-keys";
import { useTask } from "@/components/data/use-task";
import { useRefetchSoon } from "../use-refetch-soon";
import { LedgerEvent } from "@/lib/ledger/events";
import { useTaskEvents } from "./use-task-events";

interface PlanStep {
  tool_call_id: string;
  action: string;
  cleanup_steps?: string[];
  user_message?: string;
}
interface Plan {
  source?: string;
  steps?: PlanStep[];
  fallbackReason?: string;
}

export const taskKey = QueryKeys.task;

/**
 * One task, live: the timeline, what it holds and changed, the cancellation plan and its steps, every event.
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

  // The task's own plan (a Stop of one step records its plan on that step: workItemId set).
  const plan = useMemo(() => [...events].reverse().find((e) => e.type === LedgerEvent.cancellationPlanned && !e.workItemId), [events]);
  const steps = useMemo(() => events.filter((e) => e.type === LedgerEvent.cancellationStep), [events]);

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
              {refusalOf(task) !== null ? <> — {refusalSentence(refusalOf(task)!)}</> : task.endReason && <> — {task.endReason}</>} Nothing of it is running:
              Stop has nothing to stop.
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
          {can.stop && acceptsNewWork(task.stage) && !task.cancelRequestedAt && <StopTask taskId={task.id} title={task.title} onStopped={refetchSoon} />}
          {can.stop && task.conversationId && <StopEverything reach={{ conversationId: task.conversationId }} onStopped={refetchSoon} />}
          {can.stop && <StopEverything reach={{ ownerId: task.ownerId }} onStopped={refetchSoon} />}
          {can.stop && isTerminalTask(task.stage) && <RequestReversal detail={task} onRequested={refetchSoon} />}
        </div>
      </div>

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

          <Card as="section" aria-labelledby="outcomes-title">
            <SectionTitle id="outcomes-title" count={task.workItems.length}>
              What each step did
            </SectionTitle>
            {task.workItems.length === 0 ? (
              <p className="mt-2 text-sm text-muted">No step was scheduled for this task.</p>
            ) : (
              <ul className="mt-3 divide-y divide-line" data-testid="step-outcomes">
                {task.workItems.map((w) => {
                  const o = outcomes.get(w.id)!;
                  const badge = outcomeBadge(o);
                  return (
                    <li key={w.id} className="py-2 text-sm" data-testid="step-outcome" data-tool={w.toolName} data-outcome={o.kind}>
                      <div className="flex items-start justify-between gap-2">
                        <span className="min-w-0 font-medium text-ink">{toolLabel(w.toolName)}</span>
                        <Badge tone={badge.tone}>{badge.label}</Badge>
                      </div>
                      <p className="mt-0.5 text-ink" data-testid="step-outcome-words">
                        {outcomeSentence(o)}
                      </p>
                      {can.stop && stepStoppable(w, task) && <StepStop workItemId={w.id} label={toolLabel(w.toolName)} />}
                      <Details className="mt-1">
                        <Detail term="tool">{w.toolName}</Detail>
                        <Detail term="tool call">{w.correlationId}</Detail>
                        <Detail term="work item">{w.id}</Detail>
                        <Detail term="status">{w.status}</Detail>
                        {w.error && <Detail term="error">{w.error}</Detail>}
                        {w.cancelDispatchedAt && (
                          <Detail term={w.cancelDispatchAction ?? "cancel"}>
                            sent {shortTime(w.cancelDispatchedAt)}
                            {w.cancelAnsweredAt
                              ? `, answered ${shortTime(w.cancelAnsweredAt)}${w.cancelWithdrawnAt ? " (acknowledged)" : " (refused or failed)"}`
                              : ", no answer yet"}
                          </Detail>
                        )}
                      </Details>
                    </li>
                  );
                })}
              </ul>
            )}
          </Card>

          <Card as="section" aria-labelledby="plan-title">
            <SectionTitle id="plan-title">Cancellation plan and its execution</SectionTitle>
            {!task.cancelRequestedAt ? (
              <p className="mt-2 text-sm text-muted">Nobody pressed Stop on this task; there is no cancellation plan.</p>
            ) : !plan ? (
              <p className="mt-2 text-sm text-muted">Stop was recorded; the plan has not been made yet.</p>
            ) : (
              <PlanView plan={plan} steps={steps} toolOf={toolOf} />
            )}
            {task.cancelRequestedAt && (
              <SinceStop taskId={task.id} stopped version={task.workItems.map((w) => `${w.id}:${w.status}:${w.finishedAt ?? ""}`).join("|")} />
            )}
          </Card>
        </div>

        <div className="space-y-4">
          <Card as="section" aria-labelledby="resources-title">
            <SectionTitle id="resources-title" count={task.resources.length}>
              Resources
            </SectionTitle>
            {task.resources.length === 0 ? (
              <p className="mt-2 text-sm text-muted">This task held no resources.</p>
            ) : (
              <ul className="mt-3 divide-y divide-line">
                {task.resources.map((r) => {
                  const holder = task.workItems.find((w) => w.id === r.workItemId);
                  const words = RESOURCE_WORDS[resourceOutcomeOf(r, holder, !!task.cancelRequestedAt)];
                  return (
                    <li key={r.id} className="py-2 text-sm" data-testid="resource">
                      <div className="flex items-center justify-between gap-2">
                        <span className="min-w-0 truncate text-ink">
                          {r.type.replaceAll("_", " ")} of {toolLabel(toolOf.get(r.workItemId) ?? "").toLowerCase() || "a step"}
                        </span>
                        <Badge tone={words.tone}>{words.short}</Badge>
                      </div>
                      <p className="mt-0.5 text-xs text-muted">
                        {words.phrase}
                        {r.verifiedAt && <> · checked {shortTime(r.verifiedAt)}</>} · {r.attempts} release {r.attempts === 1 ? "attempt" : "attempts"}
                      </p>
                      <Details className="mt-1">
                        <Detail term={r.type}>{r.handle}</Detail>
                        <Detail term="state">{r.state}</Detail>
                      </Details>
                    </li>
                  );
                })}
              </ul>
            )}
          </Card>

          <Card as="section" aria-labelledby="effects-title">
            <SectionTitle id="effects-title" count={task.sideEffects.length}>
              Side effects
            </SectionTitle>
            {task.sideEffects.length === 0 ? (
              <p className="mt-2 text-sm text-muted">Nothing outside Stopline was changed by this task.</p>
            ) : (
              <ul className="mt-3 divide-y divide-line">
                {task.sideEffects.map((s) => (
                  <li key={s.id} className="py-2 text-sm" data-testid="side-effect" data-outcome={s.outcome}>
                    <div className="flex items-center justify-between gap-2">
                      <span className="min-w-0 truncate text-ink">{s.description ?? toolOf.get(s.workItemId)}</span>
                      <Badge tone={effectTone(s.outcome)}>{effectLabel(s.outcome)}</Badge>
                    </div>
                    <p className="mt-0.5 text-xs text-muted">
                      {s.reversible ? "Can be reversed, with another person's approval." : "Cannot be undone."}
                      {editedBy(s.evidence).length > 0 && (
                        <> Changed since by {editedBy(s.evidence).join(", ")}: a reversal would meet their change and is refused.</>
                      )}
                    </p>
                    <Details className="mt-1">
                      <Detail term="operation">{s.operationId}</Detail>
                      {s.externalRecordId && <Detail term="record">{s.externalRecordId}</Detail>}
                      {s.externalVersion && <Detail term="version the agent's write produced">{s.externalVersion}</Detail>}
                      {currentVersion(s.evidence) && <Detail term="version now">{currentVersion(s.evidence)}</Detail>}
                    </Details>
                  </li>
                ))}
              </ul>
            )}
          </Card>

          <Card as="section" aria-labelledby="review-title">
            <SectionTitle id="review-title" count={task.reviewItems.length}>
              Review items
            </SectionTitle>
            {task.reviewItems.length === 0 ? (
              <p className="mt-2 text-sm text-muted">Nothing about this task waits for a person.</p>
            ) : (
              <ul className="mt-3 space-y-2">
                {task.reviewItems.map((r) => (
                  <li key={r.id} className="text-sm">
                    <div className="flex items-center justify-between gap-2">
                      <span className="min-w-0 truncate">{r.subject}</span>
                      <Badge tone={r.status === "escalated" ? "danger" : r.status === "open" ? "warn" : "ok"}>{r.status}</Badge>
                    </div>
                    {(r.status === "open" || r.status === "escalated") && (
                      <Link href={`/console/review#${r.id}`} className="text-xs text-accent hover:underline">
                        {can.decideReviews ? "Decide in the review queue" : "See it in the review queue"}
                      </Link>
                    )}
                    {r.decidedBy && (
                      <p className="text-xs text-muted">
                        {r.status} by {r.decidedBy}
                        {r.decidedAt && <> at {shortTime(r.decidedAt)}</>}
                        {r.resolution && <> — {r.resolution}</>}
                      </p>
                    )}
                  </li>
                ))}
              </ul>
            )}
          </Card>
        </div>
      </div>

      <Card as="section" aria-labelledby="events-title" className="p-0">
        <details>
          <summary className="cursor-pointer px-5 py-3 text-sm font-semibold text-ink">
            Raw event history <span className="font-normal text-muted">({events.length} events)</span>
          </summary>
          <h2 id="events-title" className="sr-only">
            Raw event history
          </h2>
          <EventTable events={events} />
        </details>
      </Card>
    </div>
  );
}

function PlanView({ plan, steps, toolOf }: { plan: LedgerEventRecord; steps: LedgerEventRecord[]; toolOf: Map<string, string> }) {
  const data = (plan.data ?? {}) as Plan;
  return (
    <div className="mt-3 space-y-3 text-sm">
      <p className="text-muted">
        Planned {shortTime(plan.createdAt)} by {data.source === "model" ? "the model (validated)" : "the rules"}
        {data.fallbackReason && <> — rules used because {data.fallbackReason}</>}.
      </p>
      {data.steps?.length ? (
        <ol className="space-y-2" aria-label="Planned actions">
          {data.steps.map((s) => (
            <li key={s.tool_call_id} className="rounded-md border border-line px-3 py-2">
              <p>
                <Badge tone="neutral">{s.action.replaceAll("_", " ")}</Badge>{" "}
                <span className="text-ink">{toolLabel(toolOf.get(s.tool_call_id) ?? "a step")}</span>
              </p>
              {s.user_message && <p className="mt-1 text-muted">{s.user_message}</p>}
              {!!s.cleanup_steps?.length && <p className="mt-1 text-xs text-muted">Cleanup: {s.cleanup_steps.join("; ")}</p>}
            </li>
          ))}
        </ol>
      ) : (
        <p className="text-muted">No child was active when Stop arrived; nothing needed stopping.</p>
      )}
      <div>
        <h3 className="text-xs font-semibold tracking-wide text-muted uppercase">Execution</h3>
        {steps.length === 0 ? (
          <p className="mt-1 text-muted">{data.steps?.length ? "No step has run yet." : "Nothing to execute: every child had already ended."}</p>
        ) : (
          <ol className="mt-1 space-y-1" data-testid="plan-steps">
            {steps.map((e) => {
              const d = (e.data ?? {}) as { action?: string; success?: boolean };
              return (
                <li key={e.seq} className="flex gap-2">
                  <span aria-hidden="true" className={d.success ? "text-ok" : "text-danger"}>
                    {d.success ? "✓" : "✕"}
                  </span>
                  <span className="min-w-0">
                    <span className="font-medium text-ink">{(d.action ?? "step").replaceAll("_", " ")}</span>{" "}
                    <span className="sr-only">{d.success ? "succeeded" : "did not succeed"}</span>
                    {e.workItemId && <span className="text-xs text-muted">{toolLabel(toolOf.get(e.workItemId) ?? "a step")}</span>}
                    {e.reason && (
                      <Details className="mt-0.5">
                        <span className="block text-muted">{e.reason}</span>
                      </Details>
                    )}
                  </span>
                  <time className="ml-auto shrink-0 text-xs text-muted tabular-nums" dateTime={e.createdAt}>
                    {shortTime(e.createdAt)}
                  </time>
                </li>
              );
            })}
          </ol>
        )}
      </div>
    </div>
  );
}

function EventTable({ events }: { events: LedgerEventRecord[] }) {
  if (!events.length)
    return (
      <p role="status" className="px-5 pb-4 text-sm text-muted">
        {loadWords("taskHistory").loading}
      </p>
    );
  return (
    <div className="max-h-[28rem] overflow-auto border-t border-line">
      <table className="w-full min-w-[48rem] text-left text-xs">
        <thead className="sticky top-0 bg-canvas text-muted">
          <tr>
            <th className="px-5 py-2 font-medium">#</th>
            <th className="px-3 py-2 font-medium">Time</th>
            <th className="px-3 py-2 font-medium">Event</th>
            <th className="px-3 py-2 font-medium">Entity</th>
            <th className="px-3 py-2 font-medium">State</th>
            <th className="px-3 py-2 font-medium">Actor</th>
            <th className="px-5 py-2 font-medium">Reason / data</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-line font-mono">
          {events.map((e) => (
            <tr key={e.seq} className="align-top">
              <td className="px-5 py-1.5 text-muted tabular-nums">{e.seq}</td>
              <td className="px-3 py-1.5 whitespace-nowrap text-muted">{shortTime(e.createdAt)}</td>
              <td className="px-3 py-1.5 text-ink">{e.type}</td>
              <td className="px-3 py-1.5 text-muted">{e.entityType}</td>
              <td className="px-3 py-1.5 whitespace-nowrap">{e.fromState || e.toState ? `${e.fromState ?? "∅"} → ${e.toState ?? "∅"}` : ""}</td>
              <td className="px-3 py-1.5 text-muted">{e.actor}</td>
              <td className="max-w-md px-5 py-1.5 break-words text-muted">
                {e.reason}
                {e.data != null && <span className="block text-[11px]">{JSON.stringify(e.data).slice(0, 300)}</span>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Ticks every second while the task is still moving, so running bars grow. */
function useNow(ticking: boolean) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    setNow(Date.now());
    if (!ticking) return;
    const id = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(id);
  }, [ticking]);
  return now;
}

/** Announces stage changes and children settling (aria-live). */
function useAnnouncement(task: TaskDetail | undefined) {
  const previous = useRef<Map<string, string> | null>(null);
  const [text, setText] = useState("");
  useEffect(() => {
    if (!task) return;
    const next = new Map<string, string>([["task", task.stage], ...task.workItems.map((w) => [w.id, w.status] as [string, string])]);
    for (const s of task.sideEffects) next.set(`se:${s.id}`, s.outcome);
    const before = previous.current;
    previous.current = next;
    if (!before) return;
    const messages: string[] = [];
    if (before.get("task") !== task.stage) messages.push(`The task is now ${taskStageLabel(task)}.`);
    for (const w of task.workItems)
      if (before.get(w.id) !== w.status) messages.push(`${toolLabel(w.toolName)}: ${outcomeSentence(outcomesOfTask(task, Date.now()).get(w.id)!)}`);
    for (const s of task.sideEffects)
      if (before.get(`se:${s.id}`) !== s.outcome) messages.push(`${s.description ?? "A side effect"} is ${effectLabel(s.outcome)}.`);
    if (messages.length) setText(messages.join(" "));
  }, [task]);
  return text;
}

/** Who changed an external record since the agent's write, as the service's evidence says (SideEffect.evidence). */
function editedBy(evidence: unknown): string[] {
  const by = (evidence as { editedBy?: unknown } | null)?.editedBy;
  return Array.isArray(by) ? by.filter((x): x is string => typeof x === "string") : [];
}
function currentVersion(evidence: unknown): string | null {
  const v = (evidence as { currentVersion?: unknown } | null)?.currentVersion;
  return typeof v === "string" ? v : null;
}

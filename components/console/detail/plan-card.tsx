"use client";

import { useMemo } from "react";
import { toolLabel } from "@/components/chat/labels";
import { SinceStop } from "@/components/since-stop";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { Details } from "@/components/ui/details";
import { LedgerEvent } from "@/lib/ledger/events";
import type { LedgerEventRecord } from "../api";
import { shortTime } from "../format";
import { SectionTitle } from "./states";
import type { TaskDetail } from "./types";

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

/** The Stop's cancellation plan (the rules' or the validated model's) and each step the engine ran, from the task's events. */
export function PlanCard({ task, events, toolOf }: { task: TaskDetail; events: LedgerEventRecord[]; toolOf: Map<string, string> }) {
  // The task's own plan (a Stop of one step records its plan on that step: workItemId set).
  const plan = useMemo(() => [...events].reverse().find((e) => e.type === LedgerEvent.cancellationPlanned && !e.workItemId), [events]);
  const steps = useMemo(() => events.filter((e) => e.type === LedgerEvent.cancellationStep), [events]);
  return (
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

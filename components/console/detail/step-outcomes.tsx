"use client";

import { toolLabel } from "@/components/chat/labels";
import { outcomeBadge, outcomeSentence } from "@/components/outcome-words";
import { StepStop, stepStoppable } from "@/components/stop/step-stop";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { Detail, Details } from "@/components/ui/details";
import type { Capabilities } from "@/lib/auth/capabilities";
import type { ChildOutcome } from "@/lib/outcomes";
import { shortTime } from "../format";
import { SectionTitle } from "./states";
import type { TaskDetail } from "./types";

/** What each step did, in the one outcome vocabulary (lib/outcomes), with a step's own Stop where it can be stopped alone. */
export function StepOutcomes({ task, outcomes, can }: { task: TaskDetail; outcomes: Map<string, ChildOutcome>; can: Capabilities }) {
  return (
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
  );
}

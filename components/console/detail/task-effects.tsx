"use client";

import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { Detail, Details } from "@/components/ui/details";
import { SectionTitle } from "./states";
import { effectLabel, effectTone, type TaskDetail } from "./types";

/** What the task changed outside Stopline, whether it can be reversed, and who changed the record since. */
export function TaskEffects({ task, toolOf }: { task: TaskDetail; toolOf: Map<string, string> }) {
  return (
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
  );
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

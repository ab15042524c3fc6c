"use client";

import { toolLabel } from "@/components/chat/labels";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { Detail, Details } from "@/components/ui/details";
import { holderStillAtWork, RESOURCE_WORDS, ResourceOutcome, resourceOutcomeOf } from "@/lib/outcomes";
import { shortTime } from "../format";
import { SectionTitle } from "./states";
import type { TaskDetail } from "./types";

/**
 * What the task held, in the resource words (lib/outcomes/resource-outcome.ts) — and, after a Stop or once its step can
 * no longer name them, what a call may hold without a handle yet (written ahead, issue 19): never "held no resources"
 * while a service may still hold a lock for it.
 */
export function TaskResources({ task, toolOf }: { task: TaskDetail; toolOf: Map<string, string> }) {
  const holderOf = (workItemId: string) => task.workItems.find((w) => w.id === workItemId);
  // Before a Stop, a running call's open intents are only what it may take next: not news.
  const unconfirmed = (task.openResourceIntents ?? []).filter((i) => task.cancelRequestedAt || !holderStillAtWork(holderOf(i.workItemId)));
  const of = (workItemId: string) => toolLabel(toolOf.get(workItemId) ?? "").toLowerCase() || "a step";
  const count = task.resources.length + unconfirmed.length;
  const mayBeHeld = RESOURCE_WORDS[ResourceOutcome.mayBeHeld];
  return (
    <Card as="section" aria-labelledby="resources-title">
      <SectionTitle id="resources-title" count={count}>
        Resources
      </SectionTitle>
      {count === 0 ? (
        <p className="mt-2 text-sm text-muted">This task held no resources.</p>
      ) : (
        <ul className="mt-3 divide-y divide-line">
          {task.resources.map((r) => {
            const words = RESOURCE_WORDS[resourceOutcomeOf(r, holderOf(r.workItemId), !!task.cancelRequestedAt)];
            return (
              <li key={r.id} className="py-2 text-sm" data-testid="resource">
                <div className="flex items-center justify-between gap-2">
                  <span className="min-w-0 truncate text-ink">
                    {r.type.replaceAll("_", " ")} of {of(r.workItemId)}
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
          {unconfirmed.map((i) => (
            <li key={i.id} className="py-2 text-sm" data-testid="resource-intent">
              <div className="flex items-center justify-between gap-2">
                <span className="min-w-0 truncate text-ink">
                  {i.type.replaceAll("_", " ")} of {of(i.workItemId)}
                </span>
                <Badge tone={mayBeHeld.tone}>{mayBeHeld.short}</Badge>
              </div>
              <p className="mt-0.5 text-xs text-muted">{mayBeHeld.phrase}</p>
              <Details className="mt-1">
                <Detail term="call's key">{i.key}</Detail>
                <Detail term="written ahead">{shortTime(i.createdAt)}</Detail>
              </Details>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}

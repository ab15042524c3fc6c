"use client";

import { useId, useState } from "react";
import type { z } from "zod";
import { apiFetch, asSentence } from "@/components/api-client";
import { Button } from "@/components/ui/button";
import type { ReversalResponseSchema, TaskDetailSchema } from "@/lib/api/schemas";
import { isOpenReview, ReviewItemKind, SideEffectOutcome } from "@/lib/ledger/states";

type TaskDetail = z.output<typeof TaskDetailSchema>;
type Reversal = z.output<typeof ReversalResponseSchema>;

/**
 * "Request reversal" on a request that has ended: undoing what it did is its own request — a review item that
 * another person decides, bound to the version the agent's write produced — never something Stop does.
 * Offered only while a reversible effect stands and nobody has been asked about it yet.
 */
export function RequestReversal({ detail, onRequested }: { detail: TaskDetail; onRequested: () => void }) {
  const id = useId();
  const [state, setState] = useState<{ kind: "idle" } | { kind: "sending" } | { kind: "done"; message: string } | { kind: "failed"; message: string }>({
    kind: "idle",
  });
  const asked = new Set(
    detail.reviewItems
      .filter((r) => r.kind === ReviewItemKind.approveCompensation && (isOpenReview(r.status) || r.status === "approved"))
      .map((r) => r.sideEffectId),
  );
  const reversible = detail.sideEffects.filter((e) => e.outcome === SideEffectOutcome.committed && e.reversible && !asked.has(e.id));
  if (state.kind === "done") {
    return (
      <p role="status" className="rounded-md border border-line bg-surface px-3 py-2 text-sm text-ink" data-testid="reversal-requested">
        {state.message}
      </p>
    );
  }
  if (!reversible.length) return null;

  async function ask() {
    setState({ kind: "sending" });
    try {
      const answer = await apiFetch<Reversal>(`/api/tasks/${encodeURIComponent(detail.id)}/reversal`, {
        method: "POST",
        body: { reason: "a person asked to undo what this request did" },
      });
      setState({ kind: "done", message: answer.message });
      onRequested();
    } catch (error) {
      setState({ kind: "failed", message: asSentence((error as Error).message) });
    }
  }

  return (
    <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-sm" aria-describedby={`${id}-what`}>
      <Button variant="secondary" size="sm" onClick={() => void ask()} disabled={state.kind === "sending"} data-testid="request-reversal">
        {state.kind === "sending" ? "Requesting…" : "Request reversal"}
      </Button>
      <span id={`${id}-what`} className="text-muted">
        {reversible.length === 1 ? "Ask for what this request did to be undone" : `Ask for the ${reversible.length} things this request did to be undone`} —
        another person decides.
      </span>
      {state.kind === "failed" && (
        <p role="alert" className="w-full text-danger">
          The reversal was not requested: {state.message}
        </p>
      )}
    </div>
  );
}

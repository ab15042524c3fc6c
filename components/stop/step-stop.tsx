"use client";

import { useState } from "react";
import type { z } from "zod";
import { ApiError, apiFetch, asSentence } from "@/components/api-client";
import { Button } from "@/components/ui/button";
import type { ChildCancelResponseSchema } from "@/lib/api/schemas";
import { isActiveItem, WorkItemStatus } from "@/lib/ledger/states";

type ChildCancelResponse = z.output<typeof ChildCancelResponseSchema>;

/** A step a person may stop alone: still queued or under way, not yet stopped, and its task not stopped as a whole. */
export const stepStoppable = (item: { status: string; stopRequestedAt?: string | null }, task: { cancelRequestedAt: string | null; stage: string }) =>
  task.stage === "active" &&
  !task.cancelRequestedAt &&
  !item.stopRequestedAt &&
  isActiveItem(item.status) &&
  item.status !== WorkItemStatus.cancelling &&
  item.status !== WorkItemStatus.unrecoverable;

/**
 * A small Stop for one running step (a scoped Stop, issue 13): the rest of the request goes on. The step's row then
 * follows the ledger over the task's events (stopping → its outcome); this control only says the request was
 * recorded, or why it was not.
 */
export function StepStop({ workItemId, label }: { workItemId: string; label: string }) {
  const [state, setState] = useState<"idle" | "sending" | "recorded">("idle");
  const [error, setError] = useState<string | null>(null);
  async function stop() {
    setState("sending");
    setError(null);
    try {
      const answer = await apiFetch<ChildCancelResponse>(`/api/work-items/${encodeURIComponent(workItemId)}/cancel`, { method: "POST", body: {} });
      setState("recorded");
      if (answer.kind === "already_finished") setError(answer.message);
    } catch (e) {
      setState("idle");
      setError(e instanceof ApiError ? asSentence(e.message) : "The Stop could not be sent; check the connection and try again.");
    }
  }
  return (
    <span className="inline-flex flex-wrap items-center gap-2">
      <Button
        variant="ghost"
        size="sm"
        onClick={() => void stop()}
        disabled={state !== "idle"}
        aria-label={`Stop this step: ${label}`}
        data-testid="step-stop"
        className="h-7 px-2 text-stop"
      >
        <span aria-hidden="true" className="size-2 rounded-[2px] bg-current" />
        {state === "idle" ? "Stop this step" : "Stopping this step…"}
      </Button>
      {error && (
        <span role="alert" className="text-xs text-danger">
          {error}
        </span>
      )}
    </span>
  );
}

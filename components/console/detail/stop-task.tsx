"use client";

import { useId, useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { StopPreviewHover, StopPreviewPanel } from "@/components/stop/stop-preview";
import { ApiError, asSentence } from "../api";
import { sendStop } from "@/components/data/stop-client";

/**
 * Stop from the console, for people who may (`can.stop`; the page renders this only then). An operator
 * stopping someone else's task says why, so the owner's summary and the audit can tell them: the first
 * click opens a short confirmation with an optional reason; Escape or "Keep running" closes it. The
 * boundary is recorded by POST /api/tasks/{id}/cancel; the page follows the rest over the task's events.
 */
export function StopTask({ taskId, title, onStopped }: { taskId: string; title: string; onStopped: () => void }) {
  const id = useId();
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState("");
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const close = () => {
    setOpen(false);
    setError(null);
    requestAnimationFrame(() => document.getElementById(`${id}-open`)?.focus());
  };

  async function submit(e: FormEvent) {
    e.preventDefault();
    setPending(true);
    setError(null);
    try {
      // The one Stop client: retried like the chat's when the network or the server hiccups (a Stop is idempotent).
      await sendStop(taskId, reason.trim() || null);
      setOpen(false);
      onStopped();
    } catch (err) {
      setError(err instanceof ApiError ? asSentence(err.message) : "The Stop could not be sent; check the connection and try again.");
    } finally {
      setPending(false);
    }
  }

  if (!open) {
    return (
      <StopPreviewHover taskIds={[taskId]} side="below">
        {(previewId) => (
          <Button id={`${id}-open`} variant="danger" size="sm" onClick={() => setOpen(true)} aria-describedby={previewId} data-testid="console-stop">
            Stop task…
          </Button>
        )}
      </StopPreviewHover>
    );
  }
  return (
    <form
      onSubmit={submit}
      onKeyDown={(e) => e.key === "Escape" && !pending && close()}
      aria-labelledby={`${id}-title`}
      className="w-full space-y-2 rounded-md border border-stop/30 bg-danger-soft/40 p-3 text-sm sm:w-96"
      data-testid="console-stop-confirm"
    >
      <p id={`${id}-title`} className="font-medium text-ink">
        Stop “{title}”?
      </p>
      <p className="text-muted">No new work starts; running children are stopped, and what already took effect goes to review.</p>
      <StopPreviewPanel taskId={taskId} />
      <label htmlFor={`${id}-reason`} className="block text-xs font-medium text-ink">
        Reason <span className="text-muted">(optional, shown in the summary and the audit)</span>
      </label>
      <Input id={`${id}-reason`} value={reason} onChange={(e) => setReason(e.target.value)} maxLength={1000} autoFocus className="h-9" />
      <div className="flex flex-wrap gap-2">
        <Button type="submit" variant="danger" size="sm" disabled={pending}>
          {pending ? "Stopping…" : "Stop now"}
        </Button>
        <Button variant="ghost" size="sm" onClick={close} disabled={pending}>
          Keep running
        </Button>
      </div>
      {error && (
        <p role="alert" className="rounded-md bg-danger-soft px-2.5 py-2 text-danger">
          {error}
        </p>
      )}
    </form>
  );
}

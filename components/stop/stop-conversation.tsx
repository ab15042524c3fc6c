"use client";

import { useState } from "react";
import type { z } from "zod";
import { ApiError, apiFetch, asSentence } from "@/components/api-client";
import { Button } from "@/components/ui/button";
import type { ManyCancelResponseSchema } from "@/lib/api/schemas";

type ManyCancelResponse = z.output<typeof ManyCancelResponseSchema>;

/**
 * Stop everything of a conversation (issue 13): every request of it still under way gets its own Stop, each followed
 * like any Stop. Two clicks (the first asks), because it reaches beyond the task on screen.
 */
export function StopConversation({ conversationId, onStopped }: { conversationId: string; onStopped: () => void }) {
  const [state, setState] = useState<"idle" | "confirm" | "sending">("idle");
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  async function stop() {
    setState("sending");
    setMessage(null);
    try {
      const answer = await apiFetch<ManyCancelResponse>(`/api/conversations/${encodeURIComponent(conversationId)}/cancel`, { method: "POST", body: {} });
      const fresh = answer.boundaries.filter((b) => !b.alreadyRequested).length;
      setMessage({ ok: true, text: fresh === 0 ? "Nothing else in this conversation was under way." : `Stopped ${fresh} ${fresh === 1 ? "request" : "requests"} of this conversation.` });
      onStopped();
    } catch (e) {
      setMessage({ ok: false, text: e instanceof ApiError ? asSentence(e.message) : "The Stop could not be sent; check the connection and try again." });
    } finally {
      setState("idle");
    }
  }
  return (
    <div className="flex flex-col items-start gap-1.5 sm:items-end" data-testid="stop-conversation">
      {state === "idle" ? (
        <Button variant="ghost" size="sm" onClick={() => setState("confirm")} className="text-stop">
          Stop the whole conversation…
        </Button>
      ) : (
        <div className="flex flex-wrap items-center gap-2">
          <span className="text-sm text-ink">Stop every request of this conversation?</span>
          <Button variant="danger" size="sm" onClick={() => void stop()} disabled={state === "sending"}>
            {state === "sending" ? "Stopping…" : "Stop them all"}
          </Button>
          <Button variant="ghost" size="sm" onClick={() => setState("idle")} disabled={state === "sending"}>
            Keep running
          </Button>
        </div>
      )}
      {message && (
        <p role={message.ok ? "status" : "alert"} className={message.ok ? "text-sm text-ink" : "text-sm text-danger"}>
          {message.text}
        </p>
      )}
    </div>
  );
}

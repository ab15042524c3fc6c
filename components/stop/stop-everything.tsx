"use client";

import { useState } from "react";
import type { z } from "zod";
import { ApiError, apiFetch, asSentence } from "@/components/api-client";
import { Button } from "@/components/ui/button";
import type { ManyCancelResponseSchema } from "@/lib/api/schemas";

type ManyCancelResponse = z.output<typeof ManyCancelResponseSchema>;

/** What a Stop beyond one task reaches: a conversation, or everything of one person (issue 13's scoped Stop). */
export type StopReach = { conversationId: string } | { ownerId: string };

function wordsFor(reach: StopReach) {
  if ("conversationId" in reach) {
    return {
      path: `/api/conversations/${encodeURIComponent(reach.conversationId)}/cancel`,
      open: "Stop the whole conversation…",
      ask: "Stop every request of this conversation?",
      none: "Nothing else in this conversation was under way.",
      done: (n: number) => `Stopped ${n} ${n === 1 ? "request" : "requests"} of this conversation.`,
      testId: "stop-conversation",
    };
  }
  return {
    path: `/api/people/${encodeURIComponent(reach.ownerId)}/cancel`,
    open: "Stop everything of this task's owner…",
    ask: "Stop every request of this task's owner, in every conversation?",
    none: "Nothing else of this task's owner was under way.",
    done: (n: number) => `Stopped ${n} ${n === 1 ? "request" : "requests"} of this task's owner.`,
    testId: "stop-person",
  };
}

/**
 * Stop everything of a conversation or of a person: every request of it still under way gets its own Stop, each
 * followed like any Stop. Two clicks (the first asks), because it reaches beyond the task on screen.
 */
export function StopEverything({ reach, onStopped }: { reach: StopReach; onStopped: () => void }) {
  const words = wordsFor(reach);
  const [state, setState] = useState<"idle" | "confirm" | "sending">("idle");
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  async function stop() {
    setState("sending");
    setMessage(null);
    try {
      const answer = await apiFetch<ManyCancelResponse>(words.path, { method: "POST", body: {} });
      const fresh = answer.boundaries.filter((b) => !b.alreadyRequested).length;
      setMessage({ ok: true, text: fresh === 0 ? words.none : words.done(fresh) });
      onStopped();
    } catch (e) {
      setMessage({ ok: false, text: e instanceof ApiError ? asSentence(e.message) : "The Stop could not be sent; check the connection and try again." });
    } finally {
      setState("idle");
    }
  }
  return (
    <div className="flex flex-col items-start gap-1.5 sm:items-end" data-testid={words.testId}>
      {state === "idle" ? (
        <Button variant="ghost" size="sm" onClick={() => setState("confirm")} className="text-stop">
          {words.open}
        </Button>
      ) : (
        <div className="flex flex-wrap items-center gap-2">
          <span className="text-sm text-ink">{words.ask}</span>
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

"use client";

import { useState } from "react";
import type { z } from "zod";
import { ApiError, apiFetch, asSentence, isUnauthorized } from "@/components/api-client";
import { SESSION_ENDED } from "@/components/state-words";
import { cx } from "@/components/ui/cx";
import { withStopRetries } from "@/components/data/stop-client";
import { Button } from "@/components/ui/button";
import type { ManyCancelResponseSchema } from "@/lib/api/schemas";

type ManyCancelResponse = z.output<typeof ManyCancelResponseSchema>;

/**
 * What a Stop beyond one task reaches: a conversation, everything of one person (issue 13's scoped Stop), or — in the
 * chat — everything of the signed-in person themself (`mine`: the same API, the person's own words).
 */
export type StopReach = { conversationId: string } | { ownerId: string; mine?: boolean };

function wordsFor(reach: StopReach) {
  if ("conversationId" in reach) {
    return {
      reason: undefined,
      path: `/api/conversations/${encodeURIComponent(reach.conversationId)}/cancel`,
      open: "Stop the whole conversation…",
      ask: "Stop every request of this conversation?",
      none: "Nothing else in this conversation was under way.",
      done: (n: number) => `Stopped ${n} ${n === 1 ? "request" : "requests"} of this conversation.`,
      testId: "stop-conversation",
    };
  }
  if (reach.mine) {
    return {
      reason: "the person pressed Stop all my requests in the chat",
      path: `/api/people/${encodeURIComponent(reach.ownerId)}/cancel`,
      open: "Stop all my requests…",
      ask: "Stop every request of yours that is still under way, in every conversation?",
      none: "Nothing of yours was under way.",
      done: (n: number) => `Stopped ${n} ${n === 1 ? "request" : "requests"} of yours. Each conversation shows what its Stop stopped.`,
      testId: "stop-mine",
    };
  }
  return {
    reason: undefined,
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
export function StopEverything({
  reach,
  onStopped,
  offer = true,
  className,
}: {
  reach: StopReach;
  onStopped: () => void;
  /** Whether there is anything to stop now; when not, only the answer to the last Stop stays on screen. */
  offer?: boolean;
  className?: string;
}) {
  const words = wordsFor(reach);
  const [state, setState] = useState<"idle" | "confirm" | "sending">("idle");
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  async function stop() {
    setState("sending");
    setMessage(null);
    try {
      // The one Stop client's retry (components/data/stop-client.ts): a scoped Stop is idempotent at the API too.
      const answer = await withStopRetries(() =>
        apiFetch<ManyCancelResponse>(words.path, { method: "POST", body: words.reason ? { reason: words.reason } : {} }),
      );
      const fresh = answer.boundaries.filter((b) => !b.alreadyRequested).length;
      setMessage({ ok: true, text: fresh === 0 ? words.none : words.done(fresh) });
      onStopped();
    } catch (e) {
      setMessage({
        ok: false,
        text: isUnauthorized(e)
          ? SESSION_ENDED.title
          : e instanceof ApiError
            ? asSentence(e.message)
            : "The Stop could not be sent; check the connection and try again.",
      });
    } finally {
      setState("idle");
    }
  }
  return (
    <div className={cx("flex flex-col items-start gap-1.5 sm:items-end", className)} data-testid={words.testId}>
      {state === "idle" ? (
        offer && (
          <Button variant="ghost" size="sm" onClick={() => setState("confirm")} className="text-stop">
            {words.open}
          </Button>
        )
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

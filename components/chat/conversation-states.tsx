"use client";

import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/states";
import { AgentMark, UserBubble } from "./turn";

/** The conversation's own states: a message on its way, and the empty conversation (loading, error and session ended are components/ui/states.tsx). */

export interface PendingMessage {
  /** The turn id sent with the message (its idempotency key): a Stop names the turn before its task exists. */
  id: string;
  text: string;
  state: "sending" | "failed";
  error?: string;
  /** Stop was pressed before the agent answered: recorded against the turn, so its task is born stopped. */
  stopOnArrival?: boolean;
}

const SUGGESTIONS = ["Export a report of 3000 rows", "Order two chairs", "Record customer Ada ada@example.com"] as const;

export function PendingTurn({ message, onRestore }: { message: PendingMessage; onRestore: () => void }) {
  return (
    <div className="space-y-3" data-testid="pending-turn">
      <UserBubble text={message.text} pending={message.state === "sending"} failed={message.state === "failed"} />
      {message.state === "sending" ? (
        <div className="flex gap-3">
          <AgentMark />
          {message.stopOnArrival ? (
            <p className="flex min-h-7 items-center text-sm text-warn">Stopping… this request is stopped, whether or not the agent has started on it yet.</p>
          ) : (
            <p className="flex h-7 items-center gap-1" role="status">
              <span className="sr-only">The agent is reading your message</span>
              {[0, 1, 2].map((i) => (
                <span key={i} aria-hidden="true" className="size-1.5 animate-pulse rounded-full bg-muted/70" style={{ animationDelay: `${i * 150}ms` }} />
              ))}
            </p>
          )}
        </div>
      ) : (
        <div role="alert" className="ml-auto flex max-w-[85%] flex-wrap items-center justify-end gap-2 text-sm text-danger sm:max-w-[70%]">
          <span>The message was not sent: {message.error}</span>
          <Button variant="secondary" size="sm" onClick={onRestore}>
            Edit and send again
          </Button>
        </div>
      )}
    </div>
  );
}

/** The conversation has no request yet: the shared empty state, with requests to try (none for a reader). */
export function ChatEmptyState({ onPick, readOnly = false }: { onPick: (text: string) => void; readOnly?: boolean }) {
  if (readOnly) return <EmptyState kind="chatReadOnly" testId="chat-empty" className="py-12" />;
  return (
    <EmptyState kind="chatNew" mark testId="chat-empty" className="border-solid bg-surface py-12">
      <ul className="flex flex-wrap justify-center gap-2" aria-label="Try one of these">
        {SUGGESTIONS.map((s) => (
          <li key={s}>
            <Button variant="secondary" size="sm" onClick={() => onPick(s)}>
              {s}
            </Button>
          </li>
        ))}
      </ul>
    </EmptyState>
  );
}

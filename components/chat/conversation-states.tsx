"use client";

import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { AgentMark, UserBubble } from "./turn";

/** The conversation's states: a message on its way, empty, loading, could not load. */

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

export function EmptyState({ onPick, readOnly = false }: { onPick: (text: string) => void; readOnly?: boolean }) {
  if (readOnly) {
    return (
      <Card className="px-6 py-12 text-center" data-testid="chat-empty">
        <h2 className="text-base font-semibold text-ink">Nothing in this conversation yet</h2>
        <p className="mx-auto mt-2 max-w-lg text-sm leading-6 text-muted">
          Open a conversation from the list to read what the agent did and what each Stop stopped. The audit in the console searches every
          conversation by person, task or tool.
        </p>
      </Card>
    );
  }
  return (
    <Card className="flex flex-col items-center px-6 py-12 text-center" data-testid="chat-empty">
      <span aria-hidden="true" className="mb-4 grid size-10 place-items-center rounded-full bg-accent-soft">
        <span className="size-3 rounded-sm bg-accent" />
      </span>
      <h2 className="text-base font-semibold text-ink">Start a conversation with the demo agent</h2>
      <p className="mt-2 max-w-lg text-sm leading-6 text-muted">
        It can export a report, order from the shop, or record a customer and email them. It asks before anything takes effect, and{" "}
        <strong className="font-semibold text-ink">Stop</strong> (or Esc) ends whatever it is doing at any moment.
      </p>
      <ul className="mt-5 flex flex-wrap justify-center gap-2" aria-label="Try one of these">
        {SUGGESTIONS.map((s) => (
          <li key={s}>
            <Button variant="secondary" size="sm" onClick={() => onPick(s)}>
              {s}
            </Button>
          </li>
        ))}
      </ul>
    </Card>
  );
}

export function LoadingState() {
  return (
    <div aria-busy="true" className="space-y-8">
      <p role="status" className="sr-only">
        Loading the conversation…
      </p>
      {[0, 1].map((i) => (
        <div key={i} aria-hidden="true" className="space-y-3">
          <div className="flex justify-end">
            <span className="h-10 w-56 animate-pulse rounded-2xl bg-line/70" />
          </div>
          <div className="flex gap-3">
            <span className="size-7 animate-pulse rounded-full bg-line/70" />
            <div className="flex-1 space-y-3">
              <span className="block h-5 w-2/3 animate-pulse rounded bg-line/70" />
              <span className="block h-24 w-full animate-pulse rounded-card bg-line/50" />
            </div>
          </div>
        </div>
      ))}
    </div>
  );
}

export function ErrorState({ message, onRetry }: { message: string; onRetry: () => void }) {
  return (
    <Card role="alert" className="border-danger/30 px-6 py-10 text-center">
      <h2 className="text-base font-semibold text-danger">The conversation could not be loaded</h2>
      <p className="mt-2 text-sm text-muted">
        {message} Whatever the agent was doing carries on on the server; try again to see where it stands.
      </p>
      <Button variant="secondary" size="sm" className="mt-4" onClick={onRetry}>
        Try again
      </Button>
    </Card>
  );
}

"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useMemo, useState } from "react";
import { buttonStyles } from "@/components/ui/button";
import { cx } from "@/components/ui/cx";
import { shortTime } from "@/components/console/format";
import { StopEverything } from "@/components/stop/stop-everything";
import { EmptyState, ErrorState, LoadingState } from "@/components/ui/states";
import { acceptsNewWork } from "@/lib/ledger/states";
import { chatKeys, fetchRecentTasks, type TaskRow } from "./api";

interface ConversationRow {
  id: string;
  title: string;
  lastAt: string;
  requests: number;
}

/**
 * Recent conversations, from the newest 200 tasks grouped by conversation (the API has no conversation
 * list yet). The current conversation is marked; a new one starts at /chat. `stopAllOf`: the signed-in person's
 * owner id, when they may stop their own requests — while any of theirs is still under way, "Stop all my
 * requests…" stops every one of them, in every conversation (POST /api/people/{ownerId}/cancel, the console's
 * scoped Stop in the person's own words).
 */
export function ConversationList({ current, stopAllOf }: { current: string; stopAllOf?: string }) {
  const queryClient = useQueryClient();
  const query = useQuery({ queryKey: chatKeys.conversations, queryFn: ({ signal }) => fetchRecentTasks(signal), staleTime: 10_000 });
  const rows = useMemo(() => group(query.data?.tasks ?? []), [query.data]);
  const now = new Date();
  const mineUnderWay = !!stopAllOf && (query.data?.tasks ?? []).some((t) => t.ownerId === stopAllOf && acceptsNewWork(t.stage));
  // Once used, the control stays: the list refetched after the Stop has nothing of theirs under way any more, and the
  // answer ("Stopped 2 requests of yours…") must not vanish with the button.
  const [stopUsed, setStopUsed] = useState(false);

  return (
    <nav aria-label="Conversations" className="space-y-3">
      <a href="/chat" className={buttonStyles({ variant: "secondary", size: "sm", className: "w-full" })}>
        <span aria-hidden="true">+</span> New conversation
      </a>
      {stopAllOf && (mineUnderWay || stopUsed) && (
        <StopEverything
          reach={{ ownerId: stopAllOf, mine: true }}
          offer={mineUnderWay}
          // Every page of the chat follows the Stops from the ledger: each conversation's turns show "Stopping…", then what stopped.
          onStopped={() => {
            setStopUsed(true);
            void queryClient.invalidateQueries({ queryKey: chatKeys.all });
          }}
          className="sm:items-start"
        />
      )}
      <h2 className="px-1 pt-2 text-xs font-semibold tracking-wide text-muted uppercase">Recent</h2>
      {query.isPending ? (
        <LoadingState subject="conversations" shape="list" />
      ) : query.isError ? (
        <ErrorState subject="conversations" error={query.error} onRetry={() => void query.refetch()} compact />
      ) : rows.length === 0 ? (
        <EmptyState kind="conversations" compact />
      ) : (
        <ul className="space-y-0.5">
          {rows.map((c) => (
            <li key={c.id}>
              <Link
                href={`/chat/${encodeURIComponent(c.id)}`}
                aria-current={c.id === current ? "page" : undefined}
                className={cx(
                  "block rounded-md px-2.5 py-2 text-sm transition-colors",
                  c.id === current ? "bg-accent-soft text-accent-strong" : "text-ink hover:bg-surface",
                )}
              >
                <span className="block truncate font-medium" title={c.title}>
                  {c.title}
                </span>
                <span className="block text-xs text-muted">
                  {shortTime(c.lastAt, now)} · {c.requests} {c.requests === 1 ? "request" : "requests"}
                </span>
              </Link>
            </li>
          ))}
        </ul>
      )}
    </nav>
  );
}

function group(tasks: TaskRow[]): ConversationRow[] {
  const byId = new Map<string, ConversationRow>();
  // Newest first: the first task seen is the latest activity, the last one the conversation's opening.
  for (const t of tasks) {
    if (!t.conversationId) continue;
    const row = byId.get(t.conversationId);
    if (row) {
      row.title = t.title;
      row.requests += 1;
    } else byId.set(t.conversationId, { id: t.conversationId, title: t.title, lastAt: t.createdAt, requests: 1 });
  }
  return [...byId.values()].slice(0, 30);
}

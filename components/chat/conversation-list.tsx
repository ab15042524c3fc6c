"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useMemo } from "react";
import { buttonStyles } from "@/components/ui/button";
import { cx } from "@/components/ui/cx";
import { shortTime } from "@/components/console/format";
import { chatKeys, fetchRecentTasks, type TaskRow } from "./api";

interface ConversationRow {
  id: string;
  title: string;
  lastAt: string;
  requests: number;
}

/**
 * Recent conversations, from the newest 200 tasks grouped by conversation (the API has no conversation
 * list yet). The current conversation is marked; a new one starts at /chat.
 */
export function ConversationList({ current }: { current: string }) {
  const query = useQuery({ queryKey: chatKeys.conversations, queryFn: ({ signal }) => fetchRecentTasks(signal), staleTime: 10_000 });
  const rows = useMemo(() => group(query.data?.tasks ?? []), [query.data]);
  const now = new Date();

  return (
    <nav aria-label="Conversations" className="space-y-3">
      <a href="/chat" className={buttonStyles({ variant: "secondary", size: "sm", className: "w-full" })}>
        <span aria-hidden="true">+</span> New conversation
      </a>
      <h2 className="px-1 pt-2 text-xs font-semibold tracking-wide text-muted uppercase">Recent</h2>
      {query.isPending ? (
        <ul aria-hidden="true" className="space-y-2 px-1">
          {[0, 1, 2].map((i) => (
            <li key={i} className="h-9 animate-pulse rounded-md bg-line/60" />
          ))}
        </ul>
      ) : query.isError ? (
        <p className="px-1 text-sm text-muted">Could not load your conversations.</p>
      ) : rows.length === 0 ? (
        <p className="px-1 text-sm text-muted">No conversations yet.</p>
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

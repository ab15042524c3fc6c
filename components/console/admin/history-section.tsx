"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { useMemo, useState, type ReactNode } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { inputStyles } from "@/components/ui/input";
import { ADMIN_ENTITIES, type AdminEntity, type AdminEventData } from "@/lib/auth/admin-events";
import { apiFetch, asSentence, isUnauthorized } from "../api";
import { ConnectionStatus } from "../connection-status";
import { EmptyBlock, ErrorBlock, LoadingBlock, SectionTitle, SessionEndedBlock } from "../detail/states";
import { fullTime, shortTime } from "../format";
import { useLedgerEvents } from "../use-ledger-events";
import { useRefetchSoon } from "../use-refetch-soon";
import { HISTORY_KEY, type AdminHistory, type AdminHistoryEvent } from "./types";

const PAGE_SIZE = 25;

type Filter = AdminEntity | "all";
const FILTERS: { value: Filter; label: string; empty: string }[] = [
  { value: "all", label: "All changes", empty: "No administrative changes yet." },
  { value: "account", label: "Accounts", empty: "No account has been created or changed yet." },
  { value: "token", label: "API tokens", empty: "No API token has been created or revoked yet." },
  { value: "escalationChannel", label: "Escalation channels", empty: "No escalation channel has been added or removed yet." },
];
const ENTITY_LABEL: Record<AdminEntity, string> = { account: "Account", token: "API token", escalationChannel: "Escalation channel" };

function fetchHistory(filter: Filter, before: number | null, signal?: AbortSignal) {
  const params = new URLSearchParams({ limit: String(PAGE_SIZE) });
  if (before !== null) params.set("before", String(before));
  if (filter !== "all") params.set("entityType", filter);
  return apiFetch<AdminHistory>(`/api/admin/history?${params}`, { signal });
}

/**
 * The history of administration, newest first: who created or revoked which API token, created, re-roled,
 * disabled or enabled which account, added or removed which escalation channel, and when. Read from the
 * append-only ledger (GET /api/admin/history) and kept current by its event stream, so a change made by another
 * admin — or an operator on the escalations page — appears without a reload.
 */
export function HistorySection() {
  const [filter, setFilter] = useState<Filter>("all");
  const query = useInfiniteQuery({
    queryKey: [...HISTORY_KEY, filter],
    queryFn: ({ pageParam, signal }) => fetchHistory(filter, pageParam, signal),
    initialPageParam: null as number | null,
    getNextPageParam: (last) => last.nextBefore ?? undefined,
  });
  const sessionEnded = isUnauthorized(query.error);

  // One refetch for a burst of events (disabling an account and the list refresh arrive together).
  const refetchSoon = useRefetchSoon([HISTORY_KEY]);
  const live = useLedgerEvents({
    enabled: !sessionEnded,
    onOpen: refetchSoon,
    onEvent: (e) => {
      if (e.taskId === null && (ADMIN_ENTITIES as string[]).includes(e.entityType)) refetchSoon();
    },
  });

  // A refetch may overlap the previous page boundary: each event is shown once.
  const events = useMemo(() => {
    const seen = new Set<number>();
    return (query.data?.pages ?? []).flatMap((p) => p.events).filter((e) => !seen.has(e.seq) && !!seen.add(e.seq));
  }, [query.data]);
  const current = FILTERS.find((f) => f.value === filter)!;

  return (
    <section aria-labelledby="history-title" className="space-y-3" data-testid="history-section">
      <div className="flex flex-col gap-3 sm:flex-row sm:items-end sm:justify-between">
        <div>
          <SectionTitle id="history-title" count={query.data ? events.length : undefined}>
            History
          </SectionTitle>
          <p className="mt-1 text-sm text-muted">
            Every change to accounts, API tokens and escalation channels: when, by whom, what. Kept in the append-only ledger; entries are never edited or
            removed, and never contain a token, password or secret.
          </p>
        </div>
        <div className="flex shrink-0 items-center gap-3">
          {!sessionEnded && <ConnectionStatus state={live} />}
          <label htmlFor="history-filter" className="text-sm text-muted">
            Show
          </label>
          <select
            id="history-filter"
            value={filter}
            onChange={(e) => setFilter(e.target.value as Filter)}
            className={inputStyles("h-8 w-48 py-0")}
            data-testid="history-filter"
          >
            {FILTERS.map((f) => (
              <option key={f.value} value={f.value}>
                {f.label}
              </option>
            ))}
          </select>
        </div>
      </div>
      {sessionEnded ? (
        <SessionEndedBlock />
      ) : query.isPending ? (
        <LoadingBlock label="Loading the history…" />
      ) : query.isError && !query.data ? (
        <ErrorBlock title="Could not load the history" message={asSentence((query.error as Error).message)} onRetry={() => void query.refetch()} />
      ) : events.length === 0 ? (
        <EmptyBlock title={current.empty}>
          Creating or revoking a token, creating or changing an account, or adding or removing an escalation channel is recorded here.
        </EmptyBlock>
      ) : (
        <div className="overflow-hidden rounded-card border border-line bg-surface shadow-xs">
          {query.isRefetchError && (
            <p role="alert" className="border-b border-line bg-warn-soft px-5 py-2 text-sm text-warn">
              Could not refresh the history ({asSentence((query.error as Error).message)}); showing what was loaded before.
            </p>
          )}
          <div className="relative overflow-x-auto focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent" tabIndex={0}>
            <table className="w-full min-w-[48rem] text-left text-sm" data-testid="history-table">
              <caption className="sr-only">Administrative changes, newest first</caption>
              <thead className="border-b border-line bg-canvas/60 text-xs font-medium whitespace-nowrap text-muted">
                <tr>
                  <th scope="col" className="px-5 py-2.5 font-medium">
                    When
                  </th>
                  <th scope="col" className="px-3 py-2.5 font-medium">
                    Who
                  </th>
                  <th scope="col" className="px-3 py-2.5 font-medium">
                    What
                  </th>
                  <th scope="col" className="px-5 py-2.5 font-medium">
                    On
                  </th>
                </tr>
              </thead>
              <tbody className="divide-y divide-line">
                {events.map((e) => (
                  <tr key={e.seq} data-testid="history-row" data-type={e.type} data-entity-id={e.entityId} className="align-top">
                    <td className="px-5 py-3 whitespace-nowrap text-muted">
                      <time dateTime={e.createdAt} title={fullTime(e.createdAt)}>
                        {shortTime(e.createdAt)}
                      </time>
                    </td>
                    <td className="max-w-56 px-3 py-3">
                      <Actor actor={e.actor} />
                    </td>
                    <td className="px-3 py-3 text-ink">
                      <What event={e} />
                    </td>
                    <td className="max-w-72 px-5 py-3">
                      <Subject event={e} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <div className="flex items-center justify-between gap-3 border-t border-line px-5 py-2.5 text-xs text-muted">
            <span>
              {events.length} {events.length === 1 ? "change" : "changes"}
              {query.hasNextPage ? " shown; older ones are kept" : ""}
            </span>
            {query.hasNextPage && (
              <Button variant="ghost" size="sm" onClick={() => void query.fetchNextPage()} disabled={query.isFetchingNextPage}>
                {query.isFetchingNextPage ? "Loading…" : "Show older changes"}
              </Button>
            )}
          </div>
        </div>
      )}
    </section>
  );
}

/** `<role>:<name>` → the name, with the role beside it; a token made on the server's command line says so. */
function Actor({ actor }: { actor: string }) {
  const at = actor.indexOf(":");
  const role = at > 0 ? actor.slice(0, at) : "";
  const name = at > 0 ? actor.slice(at + 1) : actor;
  if (actor === "system:setup") {
    return (
      <span className="block text-ink" title="npm run token:create on the server, or another setup script">
        Server setup
        <span className="block text-xs text-muted">command line</span>
      </span>
    );
  }
  return (
    <span className="block" title={actor}>
      <span className="block truncate text-ink">{name}</span>
      {role && <span className="block text-xs text-muted">{role}</span>}
    </span>
  );
}

const text = (v: unknown) => (typeof v === "string" ? v : "");
const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The change in words. Colour is decoration: the words say it. */
function What({ event }: { event: AdminHistoryEvent }) {
  const d = event.data as Record<string, unknown>;
  let line: ReactNode;
  switch (event.type) {
    case "token.created": {
      const t = d as unknown as AdminEventData["token.created"];
      line = (
        <>
          Created an API token <Badge tone="accent">{t.role}</Badge>
        </>
      );
      break;
    }
    case "token.revoked":
      line = (
        <>
          Revoked an API token <Badge tone="neutral">{text(d.role)}</Badge>
        </>
      );
      break;
    case "account.created":
      line = (
        <>
          Created an account <Badge tone="accent">{text(d.role)}</Badge>
        </>
      );
      break;
    case "account.role_changed": {
      const r = d as unknown as AdminEventData["account.role_changed"];
      line = (
        <>
          Changed the role <Badge tone="neutral">{r.from}</Badge> <span aria-hidden="true">→</span>
          <span className="sr-only">to</span> <Badge tone="accent">{r.to}</Badge>
        </>
      );
      break;
    }
    case "account.disabled": {
      const r = d as unknown as AdminEventData["account.disabled"];
      line = (
        <>
          Disabled the account <Badge tone="warn">disabled</Badge>
          <span className="mt-0.5 block text-xs text-muted">
            {r.sessionsEnded > 0 ? `Signed out of ${count(r.sessionsEnded, "session", "sessions")}` : "No one was signed in"}
          </span>
        </>
      );
      break;
    }
    case "account.enabled": {
      const r = d as unknown as AdminEventData["account.enabled"];
      line = (
        <>
          Enabled the account <Badge tone="ok">enabled</Badge>
          {r.disabledSince && (
            <span className="mt-0.5 block text-xs text-muted">
              Disabled since{" "}
              <time dateTime={r.disabledSince} title={fullTime(r.disabledSince)}>
                {shortTime(r.disabledSince)}
              </time>
            </span>
          )}
        </>
      );
      break;
    }
    case "escalation_channel.created":
      line = (
        <>
          Added an escalation channel <Badge tone="accent">{text(d.kind)}</Badge>
        </>
      );
      break;
    case "escalation_channel.removed": {
      const r = d as unknown as AdminEventData["escalation_channel.removed"];
      line = (
        <>
          Removed an escalation channel <Badge tone="neutral">{r.kind}</Badge>
          {r.pendingDeliveriesFailed > 0 && (
            <span className="mt-0.5 block text-xs text-muted">{count(r.pendingDeliveriesFailed, "pending delivery", "pending deliveries")} not sent</span>
          )}
        </>
      );
      break;
    }
  }
  return <span className="block leading-6">{line}</span>;
}

/** Which token, account or channel, named as it was then. */
function Subject({ event }: { event: AdminHistoryEvent }) {
  const d = event.data as Record<string, unknown>;
  const detail =
    event.entityType === "token" ? (
      <span className="font-mono">{text(d.prefix)}…</span>
    ) : event.entityType === "account" ? (
      text(d.name)
    ) : (
      <span className="font-mono">{text(d.urlPreview)}</span>
    );
  return (
    <span className="block min-w-0">
      <span className="block text-xs text-muted">{ENTITY_LABEL[event.entityType]}</span>
      <span className="block truncate font-medium text-ink" title={event.subject} data-testid="history-subject">
        {event.subject}
      </span>
      <span className="block truncate text-xs text-muted">{detail}</span>
    </span>
  );
}

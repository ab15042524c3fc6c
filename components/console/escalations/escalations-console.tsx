"use client";

import { deliveryLogEmptyKind } from "@/components/state-words";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo, useRef, useState } from "react";
import { Card } from "@/components/ui/card";
import type { Capabilities } from "@/lib/auth/capabilities";
import { apiFetch, isUnauthorized } from "../api";
import { ConnectionStatus } from "../connection-status";
import { SectionTitle } from "../detail/states";
import { EmptyState, ErrorState, LoadingState, SessionEnded, StaleNotice } from "@/components/ui/states";
import { fullTime, shortTime } from "../format";
import { useLedgerEvents } from "../use-ledger-events";
import { useRefetchSoon } from "../use-refetch-soon";
import { ChannelForm } from "./channel-form";
import { ChannelList } from "./channel-list";
import { channelHealth } from "@/lib/escalation/channel-health";
import { deadlineWords } from "@/lib/review/deadline-words";
import { Badge } from "@/components/ui/badge";
import Link from "next/link";
import type { ReviewItem } from "../detail/types";
import { REVIEW_KEY } from "../review/review-queue";
import { EscalationCard } from "./delivery-log";
import {
  CHANNELS_KEY,
  DELIVERIES_KEY,
  deliveryState,
  groupByItem,
  LOG_REFRESH_BUSY_MS,
  LOG_REFRESH_MS,
  type Channel,
  type ChannelList as ChannelListData,
  type DeliveryList,
  type DeliveryState,
} from "./types";

/**
 * The escalations page: where escalations go (channels — shown and changed only by those who may manage
 * them) and what was sent (the delivery log — everyone who oversees Stopline). Delivery attempts are not
 * ledger events, so the log is re-read on a timer (faster while something is still being sent); review-item
 * events from the ledger stream (escalated, decided) re-read it at once.
 */
export function EscalationsConsole({ can }: { can: Pick<Capabilities, "manageEscalations"> }) {
  const queryClient = useQueryClient();
  const log = useQuery({
    queryKey: DELIVERIES_KEY,
    queryFn: ({ signal }) => apiFetch<DeliveryList>("/api/escalations?limit=200", { signal }),
    refetchInterval: (query) =>
      isUnauthorized(query.state.error) ? false : query.state.data?.deliveries.some((d) => d.status === "pending") ? LOG_REFRESH_BUSY_MS : LOG_REFRESH_MS,
    refetchIntervalInBackground: false,
  });
  const channels = useQuery({
    queryKey: CHANNELS_KEY,
    queryFn: ({ signal }) => apiFetch<ChannelListData>("/api/escalation-channels", { signal }),
    // Health follows the delivery log: re-read with it.
    refetchInterval: (query) => (isUnauthorized(query.state.error) ? false : LOG_REFRESH_MS),
    refetchIntervalInBackground: false,
  });
  // Every escalated review item, whether or not any channel received it (none existed, or all were removed).
  const escalatedItems = useQuery({
    queryKey: [...REVIEW_KEY, "escalated"],
    queryFn: ({ signal }) => apiFetch<{ reviewItems: ReviewItem[] }>("/api/review-items?status=escalated", { signal }),
  });
  const sessionEnded = isUnauthorized(log.error) || isUnauthorized(channels.error);

  const refetchSoon = useRefetchSoon([DELIVERIES_KEY, CHANNELS_KEY, REVIEW_KEY], 200);
  const live = useLedgerEvents({
    enabled: !sessionEnded,
    onOpen: refetchSoon,
    onEvent: (e) => {
      if (e.type.startsWith("review_item.")) refetchSoon();
    },
  });

  // Announce what changed in the log since the last read (a screen reader hears deliveries land or fail).
  const [announcement, setAnnouncement] = useState("");
  const seen = useRef<Map<string, DeliveryState> | null>(null);
  const deliveries = useMemo(() => log.data?.deliveries ?? [], [log.data]);
  useEffect(() => {
    if (!log.data) return;
    const now = new Map(deliveries.map((d) => [d.id, deliveryState(d, deliveries)] as const));
    const before = seen.current;
    seen.current = now;
    if (!before) return;
    const news: string[] = [];
    for (const d of deliveries) {
      const state = now.get(d.id)!;
      if (before.get(d.id) === state) continue;
      const what = `${d.kind === "closed_out" ? "Close-out" : d.kind === "test" ? "Test" : "Escalation"} to ${d.channel.name}`;
      if (state === "delivered") news.push(`${what} delivered.`);
      else if (state === "failed") news.push(`${what} failed.`);
      else if (state === "retrying" && before.get(d.id) !== "retrying") news.push(`${what} did not go through; retrying.`);
      else if (!before.has(d.id)) news.push(`${what} queued.`);
    }
    if (news.length) setAnnouncement(news.join(" "));
  }, [log.data, deliveries]);

  // The relative "next attempt in …" times tick while anything is being retried.
  const [now, setNow] = useState(() => Date.now());
  const retrying = deliveries.some((d) => d.status === "pending");
  useEffect(() => {
    setNow(Date.now());
    if (!retrying) return;
    const id = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(id);
  }, [retrying, log.dataUpdatedAt]);

  const groups = useMemo(() => groupByItem(deliveries), [deliveries]);
  const counts = useMemo(() => {
    const c: Record<DeliveryState, number> = { delivered: 0, failed: 0, retrying: 0, sending: 0, waiting: 0 };
    for (const d of deliveries) c[deliveryState(d, deliveries)] += 1;
    return c;
  }, [deliveries]);

  const onCreated = (channel: Channel, withSecret: boolean) => {
    queryClient.setQueryData<ChannelListData>(CHANNELS_KEY, (old) => ({
      channels: [{ ...channel, health: channelHealth(true, []) }, ...(old?.channels ?? []).filter((c) => c.id !== channel.id)],
    }));
    void queryClient.invalidateQueries({ queryKey: CHANNELS_KEY });
    void queryClient.invalidateQueries({ queryKey: DELIVERIES_KEY }); // what was still open is sent to it now, marked late
    setAnnouncement(
      `Channel “${channel.name}” added. It receives escalations from now on${withSecret ? ", signed with the secret you entered" : ""}, and now — marked late — those still waiting for a decision.`,
    );
  };
  const onTestSent = (channel: Channel) => {
    void queryClient.invalidateQueries({ queryKey: DELIVERIES_KEY });
    setAnnouncement(`Test sent to “${channel.name}”; its result appears on the channel in a moment.`);
  };
  const onRemoved = (channel: Channel) => {
    queryClient.setQueryData<ChannelListData>(CHANNELS_KEY, (old) => ({
      channels: (old?.channels ?? []).map((c) => (c.id === channel.id ? { ...c, ...channel, health: { ...c.health, health: "removed" as const } } : c)),
    }));
    void queryClient.invalidateQueries({ queryKey: CHANNELS_KEY });
    void queryClient.invalidateQueries({ queryKey: DELIVERIES_KEY });
    setAnnouncement(`Channel “${channel.name}” removed. It receives nothing more; its deliveries stay in the log.`);
  };

  const channelList = channels.data?.channels ?? [];
  const activeCount = channelList.filter((c) => c.active).length;
  const delivered = new Set(groups.map((g) => g.reviewItemId));
  const undelivered = (escalatedItems.data?.reviewItems ?? []).filter((i) => !delivered.has(i.id));

  return (
    <div className="space-y-6">
      <div className="flex flex-col items-start gap-3 sm:flex-row sm:items-end sm:justify-between">
        <div className="space-y-1">
          <h1 className="text-2xl font-semibold tracking-tight text-ink">Escalations</h1>
          <p className="max-w-3xl text-sm text-muted">
            When a review item passes its deadline, or a high-risk orphan appears, Stopline alerts every active channel; when the item is decided, the same
            channels get a close-out. Failed deliveries are retried with backoff.
          </p>
        </div>
        {!sessionEnded && <ConnectionStatus state={live} />}
      </div>
      {/* One line, always there: a new announcement never moves the page (screen readers still hear all of it). */}
      <p aria-live="polite" aria-atomic="true" data-testid="announcer" title={announcement} className="h-5 truncate text-sm text-muted">
        {announcement}
      </p>

      {sessionEnded ? (
        <SessionEnded />
      ) : (
        <>
          <section aria-labelledby="channels-title" className="space-y-3">
            <SectionTitle id="channels-title" count={channels.data ? channelList.length : undefined}>
              Channels
            </SectionTitle>
            {!can.manageEscalations && (
              <p className="rounded-card border border-line bg-surface/60 px-5 py-3 text-sm text-muted" data-testid="channels-read-only">
                Operators and admins choose where escalations go; you can read each channel&apos;s health and its deliveries below.
              </p>
            )}
            {channels.isPending ? (
              <LoadingState subject="channels" />
            ) : channels.isError && !channels.data ? (
              <ErrorState subject="channels" error={channels.error} onRetry={() => void channels.refetch()} />
            ) : (
              <div className={can.manageEscalations ? "grid gap-4 lg:grid-cols-[minmax(0,1fr)_minmax(0,1fr)]" : "grid gap-4"}>
                <div className="space-y-2">
                  {channelList.length === 0 ? (
                    <EmptyState kind="channels" />
                  ) : (
                    <>
                      {activeCount === 0 && (
                        <p role="note" className="rounded-md bg-warn-soft px-3 py-2 text-sm text-warn">
                          Every channel is removed: escalations are recorded but nobody is alerted.
                        </p>
                      )}
                      <ChannelList
                        channels={channelList}
                        onRemoved={onRemoved}
                        canManage={can.manageEscalations}
                        tests={deliveries.filter((d) => d.kind === "test")}
                        onTestSent={onTestSent}
                      />
                    </>
                  )}
                </div>
                {can.manageEscalations && (
                  <Card>
                    <ChannelForm onCreated={onCreated} />
                  </Card>
                )}
              </div>
            )}
          </section>

          {undelivered.length > 0 && (
            <section aria-labelledby="undelivered-title" className="space-y-3">
              <SectionTitle id="undelivered-title" count={undelivered.length}>
                Escalated — no channel received it
              </SectionTitle>
              <p className="text-sm text-muted">
                These items escalated when no channel was active (or every channel was removed). A channel added now receives those still open, marked late.
              </p>
              <ul className="space-y-2" data-testid="undelivered">
                {undelivered.map((item) => (
                  <li key={item.id}>
                    <UndeliveredCard item={item} />
                  </li>
                ))}
              </ul>
            </section>
          )}

          <section aria-labelledby="log-title" className="space-y-3">
            <div className="flex flex-wrap items-baseline justify-between gap-2">
              <SectionTitle id="log-title" count={log.data ? groups.length : undefined}>
                Delivery log
              </SectionTitle>
              {log.data && deliveries.length > 0 && (
                <p className="text-xs text-muted" data-testid="log-summary">
                  {counts.delivered} delivered · {counts.retrying + counts.sending + counts.waiting} in progress · {counts.failed} failed
                  {log.dataUpdatedAt > 0 && <> · checked {shortTime(new Date(log.dataUpdatedAt).toISOString())}</>}
                </p>
              )}
            </div>
            {log.isPending ? (
              <LoadingState subject="deliveryLog" />
            ) : log.isError && !log.data ? (
              <ErrorState subject="deliveryLog" error={log.error} onRetry={() => void log.refetch()} />
            ) : (
              <>
                {log.isError && <StaleNotice subject="deliveryLog" error={log.error} />}
                {groups.length === 0 ? (
                  <EmptyState kind={deliveryLogEmptyKind(undelivered.length)} />
                ) : (
                  <ol className="space-y-3" data-testid="delivery-log">
                    {groups.map((g) => (
                      <li key={g.reviewItemId}>
                        <EscalationCard group={g} all={deliveries} now={now} />
                      </li>
                    ))}
                  </ol>
                )}
              </>
            )}
          </section>
        </>
      )}
    </div>
  );
}

/** An escalated review item that no channel received: what it is, by when, and where to decide it. */
function UndeliveredCard({ item }: { item: ReviewItem }) {
  return (
    <Card as="article" aria-label={item.subject} data-testid="undelivered-item" data-review-item-id={item.id} className="border-danger/30">
      <p className="flex flex-wrap items-center gap-2 text-xs text-muted">
        <Badge tone="danger">Escalated</Badge>
        <Badge tone="warn">Not delivered to any channel</Badge>
        <time dateTime={item.deadline} title={fullTime(item.deadline)}>
          {deadlineWords(item.deadline, Date.now())}
        </time>
      </p>
      <h3 className="mt-1.5 text-base font-semibold text-ink">{item.subject}</h3>
      <p className="mt-1 flex flex-wrap gap-x-4 text-sm">
        <Link href={`/console/review?item=${encodeURIComponent(item.id)}`} className="font-medium text-accent hover:underline">
          Decide in the review queue
        </Link>
        <Link href={`/console/tasks/${encodeURIComponent(item.taskId)}`} className="text-accent hover:underline">
          Open task
        </Link>
      </p>
    </Card>
  );
}

"use client";

import { useEffect, useRef, useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button, buttonStyles } from "@/components/ui/button";
import { apiFetch, asSentence } from "../api";
import { shortTime, fullTime } from "../format";
import { CHANNEL_HEALTH_WORDS, channelHealthSentence } from "@/lib/escalation/channel-health";
import { CHANNEL_KIND_LABEL, deliveryState, STATE_LOOK, type Channel, type Delivery, type ListedChannel } from "./types";

/**
 * The channels, active first. A removed channel stays listed (its deliveries are in the log) and receives
 * nothing more. Removing asks first, in place: the confirmation takes the focus, Escape or "Keep" returns it.
 */
export function ChannelList({
  channels,
  onRemoved,
  canManage,
  tests,
  onTestSent,
}: {
  channels: ListedChannel[];
  onRemoved: (channel: Channel) => void;
  canManage: boolean;
  /** The test deliveries in the log, newest first: each channel shows its latest. */
  tests: Delivery[];
  onTestSent: (channel: Channel) => void;
}) {
  return (
    <ul className="divide-y divide-line overflow-hidden rounded-card border border-line bg-surface" data-testid="channel-list">
      {channels.map((c) => (
        <ChannelRow
          key={c.id}
          channel={c}
          onRemoved={onRemoved}
          canManage={canManage}
          lastTest={tests.find((d) => d.channelId === c.id)}
          tests={tests}
          onTestSent={onTestSent}
        />
      ))}
    </ul>
  );
}

function ChannelRow({
  channel,
  onRemoved,
  canManage,
  lastTest,
  tests,
  onTestSent,
}: {
  channel: ListedChannel;
  onRemoved: (channel: Channel) => void;
  canManage: boolean;
  lastTest?: Delivery;
  tests: Delivery[];
  onTestSent: (channel: Channel) => void;
}) {
  const [testing, setTesting] = useState(false);
  async function sendTest() {
    setTesting(true);
    setError(null);
    try {
      await apiFetch(`/api/escalation-channels/${encodeURIComponent(channel.id)}/test`, { method: "POST" });
      onTestSent(channel);
    } catch (e) {
      setError(`Test not sent: ${e instanceof Error ? asSentence(e.message) : "the request failed."}`);
    } finally {
      setTesting(false);
    }
  }
  const health = CHANNEL_HEALTH_WORDS[channel.health.health];
  const [confirming, setConfirming] = useState(false);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const confirmRef = useRef<HTMLButtonElement>(null);
  const removeRef = useRef<HTMLButtonElement>(null);
  const rowRef = useRef<HTMLLIElement>(null);
  const returnFocus = useRef(false);

  useEffect(() => {
    if (confirming) confirmRef.current?.focus();
    else if (returnFocus.current) {
      returnFocus.current = false;
      removeRef.current?.focus();
    }
  }, [confirming]);

  const keep = () => {
    returnFocus.current = true;
    setConfirming(false);
  };

  async function remove() {
    setPending(true);
    setError(null);
    try {
      const removed = await apiFetch<Channel>(`/api/escalation-channels/${encodeURIComponent(channel.id)}`, { method: "DELETE" });
      setConfirming(false);
      onRemoved(removed);
      rowRef.current?.focus(); // the buttons are gone: keep the keyboard where it was
    } catch (e) {
      setError(`Not removed: ${e instanceof Error ? asSentence(e.message) : "the request failed."}`);
    } finally {
      setPending(false);
    }
  }

  return (
    <li
      ref={rowRef}
      tabIndex={-1}
      data-testid="channel"
      data-channel-id={channel.id}
      data-active={channel.active}
      className="px-5 py-3 focus-visible:outline-2 focus-visible:outline-offset-[-2px] focus-visible:outline-accent"
    >
      <div className="flex items-start gap-3">
        <div className="min-w-0 flex-1">
          <p className="flex flex-wrap items-center gap-x-2 gap-y-1">
            <span className={channel.active ? "font-medium text-ink" : "font-medium text-muted line-through decoration-muted/60"}>{channel.name}</span>
            <Badge tone={channel.kind === "slack" ? "accent" : "neutral"}>{CHANNEL_KIND_LABEL[channel.kind] ?? channel.kind}</Badge>
            <Badge tone={health.tone} data-testid="channel-health" data-health={channel.health.health}>
              {health.short}
            </Badge>
          </p>
          <p className="mt-1 truncate font-mono text-xs text-ink" title="Shown safely: a query string and the secret part of a Slack URL are never shown.">
            {channel.urlPreview}
          </p>
          <p className="mt-0.5 text-xs text-muted">
            {channel.hasSecret ? "Signed (HMAC-SHA256)" : channel.kind === "slack" ? "Unsigned (Slack format)" : "Unsigned"} ·{" "}
            <time dateTime={channel.createdAt} title={fullTime(channel.createdAt)}>
              added {shortTime(channel.createdAt)}
            </time>
          </p>
          <p
            className={channel.health.health === "failing" ? "mt-0.5 text-xs font-medium text-danger" : "mt-0.5 text-xs text-muted"}
            data-testid="channel-health-sentence"
          >
            {channelHealthSentence(channel.health, (iso) => shortTime(iso))}
          </p>
          {lastTest && (
            <p className="mt-0.5 text-xs text-muted" data-testid="last-test" data-state={deliveryState(lastTest, tests)}>
              Test sent {shortTime(lastTest.createdAt)}: {STATE_LOOK[deliveryState(lastTest, tests)].label.toLowerCase()}
              {lastTest.status !== "delivered" && lastTest.lastError && <> — {lastTest.lastError}</>}
            </p>
          )}
        </div>
        {canManage && channel.active && !confirming && (
          <Button variant="ghost" size="sm" disabled={testing} onClick={() => void sendTest()} aria-label={`Send test to ${channel.name}`}>
            {testing ? "Sending…" : "Send test"}
          </Button>
        )}
        {canManage && channel.active && !confirming && (
          <button
            ref={removeRef}
            type="button"
            className={buttonStyles({ variant: "secondary", size: "sm" })}
            onClick={() => setConfirming(true)}
            aria-label={`Remove ${channel.name}`}
          >
            Remove
          </button>
        )}
      </div>
      {confirming && (
        <div
          role="group"
          aria-label={`Confirm removing ${channel.name}`}
          className="mt-2 flex flex-wrap items-center gap-2 rounded-md border border-danger/30 bg-danger-soft/50 px-3 py-2 text-sm"
          onKeyDown={(e) => {
            if (e.key === "Escape") keep();
          }}
        >
          <p className="min-w-0 flex-1 text-ink">
            Remove <strong>{channel.name}</strong>? It receives nothing more; deliveries still waiting for it are marked failed. Its log is kept.
          </p>
          <button ref={confirmRef} type="button" className={buttonStyles({ variant: "danger", size: "sm" })} disabled={pending} onClick={() => void remove()}>
            {pending ? "Removing…" : "Remove channel"}
          </button>
          <Button variant="secondary" size="sm" disabled={pending} onClick={keep}>
            Keep
          </Button>
        </div>
      )}
      {error && (
        <p role="alert" className="mt-2 text-sm text-danger">
          {error}
        </p>
      )}
    </li>
  );
}

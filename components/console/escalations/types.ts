import type { z } from "zod";
import type { BadgeTone } from "@/components/ui/badge";
import type { EscalationChannelListSchema, EscalationChannelSchema, EscalationDeliveryListSchema } from "@/lib/api/schemas";
import { QueryKeys } from "@/components/data/query-keys";
import { DeliveryKind, DeliveryStatus, EscalationTrigger } from "@/lib/escalation/states";

// Types only: the console trusts its own API's contract and ships no zod to the browser.
export type Channel = z.output<typeof EscalationChannelSchema>;
export type ChannelList = z.output<typeof EscalationChannelListSchema>;
/** A channel as listed, with its health; a channel just created has no log yet. */
export type ListedChannel = ChannelList["channels"][number];
export type DeliveryList = z.output<typeof EscalationDeliveryListSchema>;
export type Delivery = DeliveryList["deliveries"][number];

export const CHANNELS_KEY = QueryKeys.escalationChannels;
export const DELIVERIES_KEY = QueryKeys.escalations;
/** Deliveries change without ledger events (attempts, retries): the log is re-read this often… */
export const LOG_REFRESH_MS = 5_000;
/** …and this often while something is still being sent or retried. */
export const LOG_REFRESH_BUSY_MS = 1_500;

export const CHANNEL_KIND_LABEL: Record<string, string> = { webhook: "Webhook", slack: "Slack-compatible" };

export const TRIGGER_LOOK: Record<string, { label: string; tone: BadgeTone }> = {
  [EscalationTrigger.deadlinePassed]: { label: "Deadline passed", tone: "warn" },
  [EscalationTrigger.highRiskOrphan]: { label: "High-risk orphan", tone: "danger" },
  [EscalationTrigger.escalated]: { label: "Escalated", tone: "danger" },
};

export const REVIEW_KIND_LABEL: Record<string, string> = {
  approve_compensation: "Compensation approval",
  resolve_uncertain: "Uncertain outcome",
  orphaned_resource: "Orphaned resource",
  orphaned_side_effect: "Irreversible side effect",
};

export type DeliveryState = "delivered" | "failed" | "retrying" | "sending" | "waiting";

/**
 * What a delivery is doing, in the words a person uses. `pending` covers three cases the log must tell
 * apart: never tried yet (sending), tried and failed (retrying, with its next attempt), and a close-out held
 * back until its escalation has gone out (waiting — a receiver never sees "closed" before "escalated").
 */
export function deliveryState(d: Delivery, all: Delivery[]): DeliveryState {
  if (d.status === DeliveryStatus.delivered) return "delivered";
  if (d.status === DeliveryStatus.failed) return "failed";
  if (d.attempts > 0) return "retrying";
  if (
    d.kind === DeliveryKind.closedOut &&
    all.some(
      (e) => e.kind === DeliveryKind.escalated && e.channelId === d.channelId && e.reviewItemId === d.reviewItemId && e.status === DeliveryStatus.pending,
    )
  ) {
    return "waiting";
  }
  return "sending";
}

export const STATE_LOOK: Record<DeliveryState, { label: string; tone: BadgeTone }> = {
  delivered: { label: "Delivered", tone: "ok" },
  failed: { label: "Failed", tone: "danger" },
  retrying: { label: "Retrying", tone: "warn" },
  sending: { label: "Sending", tone: "accent" },
  waiting: { label: "Waiting for the escalation", tone: "neutral" },
};

/** The log grouped by review item, newest activity first; within a group, each escalation with its close-out. */
export interface EscalationGroup {
  reviewItemId: string;
  taskId: string;
  reviewItem: Delivery["reviewItem"];
  task: Delivery["task"];
  trigger: Delivery["trigger"];
  reason: string | null;
  deliveries: Delivery[];
}

export function groupByItem(deliveries: Delivery[]): EscalationGroup[] {
  const groups = new Map<string, EscalationGroup>();
  for (const d of deliveries) {
    if (d.kind === DeliveryKind.test) continue; // a channel's test is shown on its channel, not as an escalation
    let g = groups.get(d.reviewItemId);
    if (!g) {
      g = { reviewItemId: d.reviewItemId, taskId: d.taskId, reviewItem: d.reviewItem, task: d.task, trigger: d.trigger, reason: d.reason, deliveries: [] };
      groups.set(d.reviewItemId, g);
    }
    g.deliveries.push(d);
  }
  for (const g of groups.values()) {
    // Per channel, the escalation first and its close-out after it: the order a receiver sees them in.
    g.deliveries.sort(
      (a, b) =>
        a.channel.name.localeCompare(b.channel.name) ||
        a.channelId.localeCompare(b.channelId) ||
        (a.kind === DeliveryKind.escalated ? -1 : 1) - (b.kind === DeliveryKind.escalated ? -1 : 1),
    );
    const escalation = g.deliveries.find((d) => d.kind === DeliveryKind.escalated);
    if (escalation) {
      g.trigger = escalation.trigger;
      g.reason = escalation.reason;
    }
  }
  return [...groups.values()];
}

/** Field errors from the API's 400: "invalid request — url: an http(s) URL; secret: at least 16 characters". */
export function fieldErrors(message: string, fields: readonly string[]): { fields: Record<string, string>; other: string | null } {
  const at = message.indexOf(" — ");
  if (!message.startsWith("invalid request") || at < 0) return { fields: {}, other: message };
  const names = [...fields, "(body)"].map((f) => f.replace(/[()]/g, "\\$&")).join("|");
  const parts = message.slice(at + 3).split(new RegExp(`; (?=(?:${names}): )`));
  const result: Record<string, string> = {};
  const other: string[] = [];
  for (const part of parts) {
    const colon = part.indexOf(": ");
    const field = colon > 0 ? part.slice(0, colon) : "";
    if (fields.includes(field)) result[field] ??= part.slice(colon + 2);
    else other.push(part);
  }
  return { fields: result, other: other.length ? other.join("; ") : null };
}

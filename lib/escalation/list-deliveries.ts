import { allows, Roles } from "../auth/permissions";
import type { Principal } from "../auth/tokens";
import type { Database } from "../db/client";
import type { AttemptRecord } from "./deliver";
import { ReviewItemKind } from "../ledger/states";
import { DeliveryKind, EscalationTrigger } from "./states";

export interface DeliveryFilter {
  reviewItemId?: string;
  taskId?: string;
  channelId?: string;
  status?: string;
  kind?: string;
  limit?: number;
}

const ORPHAN_KINDS = new Set<string>([ReviewItemKind.orphanedResource, ReviewItemKind.orphanedSideEffect]);

/**
 * The delivery log, newest first: each escalation and close-out per channel with every attempt, and — so a
 * person can read it without opening each body — the review item and task it is about and why it was
 * escalated (`trigger`, `reason`).
 *
 * Why: a webhook body records its trigger and reason; a Slack message does not (it is prose), so for those
 * the ledger answers — the latest `review_item.escalated` (or, for an orphan, `review_item.opened`) event at
 * or before the escalation was enqueued, exactly the event enqueue.ts turned into it.
 */
export async function listDeliveries(database: Database, filter: DeliveryFilter = {}, viewer?: Principal) {
  const rows = await listAllDeliveries(database, filter);
  // What a receiver answered (its error body, an internal host name in a connection error) is shown only to
  // the roles that configure channels; others (support) see the status and that it failed, not the text.
  if (!viewer || allows(Roles.escalations, viewer.role)) return rows;
  return rows.map((r) => ({
    ...r,
    lastError: r.lastError === null ? null : redactedError(r.responseStatus),
    attemptLog: (r.attemptLog as unknown as AttemptRecord[]).map((a) => ({ ...a, error: a.error === null ? null : redactedError(a.status) })),
  }));
}

/** The error as a role that did not configure the channel may read it: what kind of failure, no receiver text. */
export const redactedError = (status: number | null) =>
  `${status === null ? "the delivery failed (no HTTP answer)" : `HTTP ${status}`} — details are shown to operators and admins`;

async function listAllDeliveries(database: Database, filter: DeliveryFilter) {
  const prisma = database.prisma;
  const rows = await prisma.escalationDelivery.findMany({
    where: {
      ...(filter.reviewItemId ? { reviewItemId: filter.reviewItemId } : {}),
      ...(filter.taskId ? { taskId: filter.taskId } : {}),
      ...(filter.channelId ? { channelId: filter.channelId } : {}),
      ...(filter.status ? { status: filter.status } : {}),
      ...(filter.kind ? { kind: filter.kind } : {}),
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: filter.limit ?? 100,
    include: { channel: { select: { id: true, name: true, kind: true, active: true, createdAt: true } } },
  });
  if (!rows.length) return [];

  const itemIds = [...new Set(rows.map((r) => r.reviewItemId))];
  const taskIds = [...new Set(rows.map((r) => r.taskId))];
  const [items, tasks, events, escalations] = await Promise.all([
    prisma.reviewItem.findMany({
      where: { id: { in: itemIds } },
      select: { id: true, kind: true, subject: true, status: true, deadline: true, decidedBy: true, decidedAt: true, resolution: true },
    }),
    prisma.task.findMany({ where: { id: { in: taskIds } }, select: { id: true, title: true } }),
    prisma.ledgerEvent.findMany({
      where: { entityType: "reviewItem", entityId: { in: itemIds }, type: { in: ["review_item.escalated", "review_item.opened"] } },
      orderBy: { seq: "asc" },
      select: { entityId: true, type: true, reason: true, createdAt: true },
    }),
    // When each (channel, item) was escalated: a close-out's "why" is its escalation's.
    prisma.escalationDelivery.findMany({
      where: { reviewItemId: { in: itemIds }, kind: DeliveryKind.escalated },
      select: { channelId: true, reviewItemId: true, createdAt: true, payload: true },
    }),
  ]);
  const itemById = new Map(items.map((i) => [i.id, i]));
  const taskById = new Map(tasks.map((t) => [t.id, t]));
  const escalationOf = new Map(escalations.map((e) => [`${e.channelId}/${e.reviewItemId}`, e]));

  return rows.map((r) => {
    const item = itemById.get(r.reviewItemId) ?? null;
    const escalation = r.kind === DeliveryKind.escalated ? r : escalationOf.get(`${r.channelId}/${r.reviewItemId}`);
    const why = whyEscalated(
      (escalation?.payload ?? null) as { trigger?: unknown; reason?: unknown } | null,
      events.filter((e) => e.entityId === r.reviewItemId && (e.type === "review_item.escalated" || (item && ORPHAN_KINDS.has(item.kind)))),
      escalation?.createdAt ?? r.createdAt,
      item?.kind,
    );
    const task = taskById.get(r.taskId);
    // Sent late: the channel was added after the item's first alert (catch-up-channel.ts sent it what was still open).
    const firstAlert = events.find((e) => e.entityId === r.reviewItemId && (e.type === "review_item.escalated" || (item && ORPHAN_KINDS.has(item.kind))));
    const late = r.kind === DeliveryKind.escalated && !!firstAlert && r.channel.createdAt.getTime() > firstAlert.createdAt.getTime();
    const { createdAt: _channelCreatedAt, ...channel } = r.channel;
    return {
      ...r,
      channel,
      late,
      attemptLog: r.attemptLog ?? [],
      reviewItem: item && {
        id: item.id,
        kind: item.kind,
        subject: item.subject,
        status: item.status,
        deadline: item.deadline,
        decidedBy: item.decidedBy,
        decidedAt: item.decidedAt,
        resolution: item.resolution,
      },
      task: task ? { id: task.id, title: task.title } : null,
      trigger: why.trigger,
      reason: why.reason,
    };
  });
}

const TRIGGERS = new Set<string>(Object.values(EscalationTrigger));

/** The escalation's trigger and reason: as its webhook body recorded them, else from the ledger event that caused it. */
function whyEscalated(
  body: { trigger?: unknown; reason?: unknown } | null,
  events: { type: string; reason: string | null; createdAt: Date }[],
  escalatedAt: Date,
  kind: string | undefined,
): { trigger: EscalationTrigger; reason: string | null } {
  if (body && typeof body.trigger === "string" && TRIGGERS.has(body.trigger) && body.reason !== undefined) {
    return { trigger: body.trigger as EscalationTrigger, reason: typeof body.reason === "string" ? body.reason : null };
  }
  const cause = events.filter((e) => e.createdAt.getTime() <= escalatedAt.getTime()).at(-1) ?? events[0];
  if (!cause) return { trigger: EscalationTrigger.escalated, reason: null };
  if (cause.type === "review_item.opened")
    return {
      trigger: EscalationTrigger.highRiskOrphan,
      reason: `high-risk ${kind === ReviewItemKind.orphanedResource ? "orphaned resource" : "irreversible side effect"}: escalated as soon as it was found`,
    };
  return { trigger: /^deadline\b/.test(cause.reason ?? "") ? EscalationTrigger.deadlinePassed : EscalationTrigger.escalated, reason: cause.reason };
}

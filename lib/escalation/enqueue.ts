import type { Database } from "../db/client";
import { reviewDeadlineMs } from "../cancellation/steps/7-review";
import { ReviewItemKind, ReviewItemStatus } from "../ledger/states";
import type { ToolRegistry } from "../tools/registry";
import { EscalationTrigger, linksFor, publicUrl, renderPayload, type EscalationFacts } from "./payload";
import { DeliveryKind, DeliveryStatus, EscalationEvent } from "./states";
import { positionOfSeq, readEventsAfter, type LedgerEventRow } from "../events/read-events";

/**
 * Turns committed ledger events into escalation deliveries. The ledger is the source: a cursor (the last
 * event read, by its `seq`, in EscalationCursor) walks the append-only events in ledger order, so an escalation committed while this
 * process was down, or by another process, is still delivered; the in-process commit notification only
 * wakes the reader early.
 *
 * - `review_item.escalated` → one `escalated` delivery per active channel;
 * - `review_item.opened` of an orphaned resource / irreversible side effect that is high-risk → the same, at once
 *   (it does not wait for its deadline);
 * - `review_item.resolved` / `review_item.rejected` of an item that was escalated to a channel → a
 *   `closed_out` delivery to that channel (an approval is closed out when its compensation resolves it).
 *
 * Idempotent: a delivery is unique per (channel, review item, kind) — a second escalation of the same item
 * (e.g. its compensation later conflicted) records a new ledger event but does not page twice; readers in
 * several processes may overlap and still create each delivery once. A channel receives what was escalated
 * while it existed (`createdAt` ≤ the event's time): adding a channel does not replay old escalations.
 */

export const CURSOR_ID = "escalations";
const WATCHED = ["review_item.escalated", "review_item.opened", "review_item.resolved", "review_item.rejected"];
const ORPHAN_KINDS = new Set<string>([ReviewItemKind.orphanedResource, ReviewItemKind.orphanedSideEffect]);

export interface EnqueueOptions {
  /** Base URL for links in messages (default STOPLINE_PUBLIC_URL, else http://localhost:$PORT). */
  publicUrl?: string;
  /** Used to tell a high-risk tool when an item's own record does not say. */
  registry?: ToolRegistry;
  /** Events read per round trip. */
  batch?: number;
}

type Channel = { id: string; kind: string; createdAt: Date };

/** Reads the ledger from the cursor to its head, creating the deliveries it implies. Returns how many were created. */
export async function enqueueEscalations(database: Database, options: EnqueueOptions = {}): Promise<number> {
  const prisma = database.prisma;
  const batch = options.batch ?? 500;
  let created = 0;
  for (;;) {
    const cursor = await readCursor(database);
    // Ledger order (read-events.ts): on PostgreSQL an event can commit after one with a larger seq; the reader
    // delivers both, in order, before moving past them.
    const { events: read } = await readEventsAfter(database, await positionOfSeq(database, cursor), { types: WATCHED, reviewItemsOnly: true, limit: batch });
    if (!read.length) return created;
    const events: LedgerEventRow[] = read.map((e) => e.event);
    const channels: Channel[] = await prisma.escalationChannel.findMany({ where: { active: true }, select: { id: true, kind: true, createdAt: true } });
    // In ledger order: an item's escalation is enqueued before its close-out.
    if (channels.length) for (const event of events) created += await enqueueFor(database, event, channels, options);
    // Compare-and-set: another reader that moved the cursor meanwhile created the same (unique) deliveries.
    await prisma.escalationCursor.updateMany({ where: { id: CURSOR_ID, seq: cursor }, data: { seq: read[read.length - 1].event.seq } });
    if (read.length < batch) return created;
  }
}

async function readCursor(database: Database): Promise<number> {
  const row = await database.prisma.escalationCursor.findUnique({ where: { id: CURSOR_ID } });
  if (row) return row.seq;
  try {
    await database.prisma.escalationCursor.create({ data: { id: CURSOR_ID, seq: 0 } });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error; // another reader created it first
  }
  return (await database.prisma.escalationCursor.findUniqueOrThrow({ where: { id: CURSOR_ID } })).seq;
}

async function enqueueFor(database: Database, event: LedgerEventRow, channels: Channel[], options: EnqueueOptions): Promise<number> {
  const prisma = database.prisma;
  const item = await prisma.reviewItem.findUnique({
    where: { id: event.entityId },
    include: { task: { select: { id: true, title: true, riskLevel: true } }, workItem: { select: { toolName: true } } },
  });
  if (!item) return 0;
  const base: Omit<EscalationFacts, "event" | "trigger" | "escalatedAt" | "reason"> = {
    reviewItem: { id: item.id, kind: item.kind, subject: item.subject, deadline: item.deadline.toISOString(), status: item.status },
    task: { id: item.task.id, title: item.task.title },
    links: linksFor(options.publicUrl ?? publicUrl(), item.id, item.taskId),
  };
  const activeThen = channels.filter((c) => c.createdAt.getTime() <= event.createdAt.getTime());

  if (event.type === "review_item.escalated" || event.type === "review_item.opened") {
    let facts: EscalationFacts;
    if (event.type === "review_item.escalated") {
      facts = {
        ...base,
        reviewItem: { ...base.reviewItem, status: ReviewItemStatus.escalated },
        event: EscalationEvent.escalated,
        trigger: /^deadline\b/.test(event.reason ?? "") ? EscalationTrigger.deadlinePassed : EscalationTrigger.escalated,
        escalatedAt: event.createdAt.toISOString(),
        reason: event.reason,
      };
    } else {
      if (!ORPHAN_KINDS.has(item.kind) || !isHighRisk(item, event, options.registry)) return 0;
      facts = {
        ...base,
        reviewItem: { ...base.reviewItem, status: event.toState ?? ReviewItemStatus.open },
        event: EscalationEvent.escalated,
        trigger: EscalationTrigger.highRiskOrphan,
        escalatedAt: event.createdAt.toISOString(),
        reason: `high-risk ${item.kind === ReviewItemKind.orphanedResource ? "orphaned resource" : "irreversible side effect"}: escalated as soon as it was found`,
      };
    }
    let n = 0;
    for (const channel of activeThen) n += await createDelivery(database, { channel, item, kind: DeliveryKind.escalated, facts });
    return n;
  }

  // resolved / rejected: close out wherever it was escalated.
  const escalations = await prisma.escalationDelivery.findMany({
    where: { reviewItemId: item.id, kind: DeliveryKind.escalated, channelId: { in: channels.map((c) => c.id) } },
    select: { channelId: true, payload: true, createdAt: true },
  });
  if (!escalations.length) return 0;
  const firstAlert = await prisma.ledgerEvent.findFirst({
    where: { entityType: "reviewItem", entityId: item.id, seq: { lt: event.seq }, type: { in: ["review_item.escalated", "review_item.opened"] } },
    orderBy: [{ type: "asc" }, { seq: "desc" }], // the latest escalation ("…escalated" sorts first), else the opening
    select: { createdAt: true },
  });
  let n = 0;
  for (const e of escalations) {
    const channel = channels.find((c) => c.id === e.channelId)!;
    const facts: EscalationFacts = {
      ...base,
      reviewItem: { ...base.reviewItem, status: event.toState ?? item.status },
      event: EscalationEvent.closedOut,
      trigger: (e.payload as { trigger?: EscalationTrigger } | null)?.trigger ?? EscalationTrigger.escalated,
      escalatedAt: (firstAlert?.createdAt ?? e.createdAt).toISOString(),
      reason: event.reason,
      closedOut: {
        at: event.createdAt.toISOString(),
        status: event.toState ?? item.status,
        decidedBy: item.decidedBy ?? event.actor,
        resolution: item.resolution ?? event.reason,
      },
    };
    n += await createDelivery(database, { channel, item, kind: DeliveryKind.closedOut, facts });
  }
  return n;
}

export async function createDelivery(
  database: Database,
  input: { channel: Channel; item: { id: string; taskId: string }; kind: string; facts: EscalationFacts },
): Promise<number> {
  try {
    await database.prisma.escalationDelivery.create({
      data: {
        channelId: input.channel.id,
        reviewItemId: input.item.id,
        taskId: input.item.taskId,
        kind: input.kind,
        status: DeliveryStatus.pending,
        payload: renderPayload(input.channel.kind, input.facts) as never,
        nextAttemptAt: new Date(),
      },
    });
    return 1;
  } catch (error) {
    if (isUniqueViolation(error)) return 0; // already enqueued (by an earlier pass or another process)
    throw error;
  }
}

/**
 * Whether an orphan is high-risk. The engine opens the item with a risk (the tool's, else the task's) that
 * decides its deadline; the item does not store it. In order: a `risk` recorded on the opening event; the
 * deadline window (the high-risk deadline is the shorter one); the task's or the tool's declared risk.
 */
export function isHighRisk(
  item: { kind: string; deadline: Date; createdAt: Date; task: { riskLevel: string }; workItem: { toolName: string } | null },
  event: { data: unknown },
  registry?: ToolRegistry,
): boolean {
  const recorded = (event.data as { risk?: unknown } | null)?.risk;
  if (recorded === "high" || recorded === "low") return recorded === "high";
  const high = reviewDeadlineMs("high");
  const low = reviewDeadlineMs("low");
  if (high < low) return item.deadline.getTime() - item.createdAt.getTime() < (high + low) / 2;
  if (item.task.riskLevel === "high") return true;
  return !!(registry && item.workItem && registry.get(item.workItem.toolName)?.risk === "high");
}

export const isUniqueViolation = (error: unknown) => (error as { code?: unknown })?.code === "P2002";

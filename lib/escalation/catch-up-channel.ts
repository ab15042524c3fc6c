import type { Database } from "../db/client";
import { ReviewItemKind, ReviewItemStatus } from "../ledger/states";
import { createDelivery } from "./enqueue";
import { EscalationTrigger, linksFor, publicUrl, type EscalationFacts } from "./payload";
import { DeliveryKind, EscalationEvent } from "./states";

const ORPHAN_KINDS = new Set<string>([ReviewItemKind.orphanedResource, ReviewItemKind.orphanedSideEffect]);

/**
 * A channel added after an escalation receives what is still open, marked late (`late.channelAddedAt`): every
 * review item that is escalated and undecided, and every high-risk orphan still open that was escalated to another
 * channel when it was found. Decided items are not sent (nobody needs paging for them). Idempotent: a delivery is
 * unique per (channel, item, kind), so running it twice sends nothing twice. The deliverer sends them on its next
 * pass (its poll, at most a second later).
 */
export async function catchUpChannel(
  database: Database,
  channel: { id: string; kind: string; createdAt: Date },
  options: { publicUrl?: string } = {},
): Promise<number> {
  const prisma = database.prisma;
  const escalatedOrphans = await prisma.escalationDelivery.findMany({
    where: { kind: DeliveryKind.escalated, channelId: { not: channel.id } },
    select: { reviewItemId: true },
    distinct: ["reviewItemId"],
  });
  const items = await prisma.reviewItem.findMany({
    where: {
      OR: [
        { status: ReviewItemStatus.escalated },
        { status: ReviewItemStatus.open, kind: { in: [...ORPHAN_KINDS] }, id: { in: escalatedOrphans.map((d) => d.reviewItemId) } },
      ],
    },
    include: { task: { select: { id: true, title: true } } },
    orderBy: [{ deadline: "asc" }, { id: "asc" }],
    take: 500,
  });
  if (!items.length) return 0;
  const causes = await prisma.ledgerEvent.findMany({
    where: { entityType: "reviewItem", entityId: { in: items.map((i) => i.id) }, type: { in: ["review_item.escalated", "review_item.opened"] } },
    orderBy: { seq: "asc" },
    select: { entityId: true, type: true, reason: true, createdAt: true },
  });
  const base = options.publicUrl ?? publicUrl();
  let created = 0;
  for (const item of items) {
    const mine = causes.filter((e) => e.entityId === item.id);
    const escalation = mine.filter((e) => e.type === "review_item.escalated").at(-1);
    const cause = item.status === ReviewItemStatus.escalated ? escalation : mine.find((e) => e.type === "review_item.opened");
    const trigger =
      item.status !== ReviewItemStatus.escalated
        ? EscalationTrigger.highRiskOrphan
        : /^deadline\b/.test(escalation?.reason ?? "")
          ? EscalationTrigger.deadlinePassed
          : EscalationTrigger.escalated;
    const facts: EscalationFacts = {
      event: EscalationEvent.escalated,
      trigger,
      reviewItem: { id: item.id, kind: item.kind, subject: item.subject, deadline: item.deadline.toISOString(), status: item.status },
      task: { id: item.task.id, title: item.task.title },
      escalatedAt: (cause?.createdAt ?? item.updatedAt).toISOString(),
      reason:
        trigger === EscalationTrigger.highRiskOrphan
          ? `high-risk ${item.kind === ReviewItemKind.orphanedResource ? "orphaned resource" : "irreversible side effect"}: escalated as soon as it was found`
          : (cause?.reason ?? null),
      links: linksFor(base, item.id, item.taskId),
      late: { channelAddedAt: channel.createdAt.toISOString() },
    };
    created += await createDelivery(database, { channel, item, kind: DeliveryKind.escalated, facts });
  }
  return created;
}

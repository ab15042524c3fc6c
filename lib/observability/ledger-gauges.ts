import type { Database } from "../db/client";
import { OPEN_REVIEW_STATUSES, QUARANTINE_STATES, ReviewItemKind, TaskStage, WorkItemStatus } from "../ledger/states";
import { metrics } from "./metrics";

/**
 * The ledger's state as gauges, read at each scrape. Every read is served by an index that holds only the rows it
 * counts (the queue's head, leased items, uncertain items — partial indexes; review items by status; tasks by
 * stage; escalation deliveries by status), so a scrape costs what is in flight, not the ledger's whole history.
 */
export async function readLedgerGauges(database: Database, now = new Date()): Promise<void> {
  const g = metrics().gauges;
  const p = database.prisma;
  try {
    const [
      queued,
      leased,
      uncertain,
      uncertainOverdue,
      review,
      reviewOverdue,
      oldestReview,
      unsettled,
      oldestUnsettled,
      failing,
      failed,
      pending,
      leases,
      switches,
    ] = await Promise.all([
      p.workItem.groupBy({ by: ["toolName"], where: { status: WorkItemStatus.queued }, _count: { _all: true } }),
      p.workItem.groupBy({ by: ["toolName"], where: { leaseToken: { not: null } }, _count: { _all: true } }),
      p.workItem.count({ where: { status: WorkItemStatus.uncertain } }),
      p.workItem.count({ where: { status: WorkItemStatus.uncertain, reconcileDeadline: { lt: now } } }),
      p.reviewItem.groupBy({ by: ["kind"], where: { status: { in: OPEN_REVIEW_STATUSES } }, _count: { _all: true } }),
      p.reviewItem.groupBy({ by: ["kind"], where: { status: { in: OPEN_REVIEW_STATUSES }, deadline: { lt: now } }, _count: { _all: true } }),
      p.reviewItem.findFirst({ where: { status: { in: OPEN_REVIEW_STATUSES } }, orderBy: { createdAt: "asc" }, select: { createdAt: true } }),
      p.task.count({ where: { stage: TaskStage.cancelRequested } }),
      p.task.findFirst({ where: { stage: TaskStage.cancelRequested }, orderBy: { cancelRequestedAt: "asc" }, select: { cancelRequestedAt: true } }),
      p.escalationDelivery.count({ where: { status: "pending", attempts: { gt: 0 } } }),
      p.escalationDelivery.count({ where: { status: "failed" } }),
      p.escalationDelivery.count({ where: { status: "pending" } }),
      p.processLease.findMany({ select: { name: true, owner: true, expiresAt: true } }),
      p.incident.groupBy({ by: ["targetKind"], where: { state: { in: QUARANTINE_STATES } }, _count: { _all: true } }),
    ]);
    setByLabel(
      g.queueDepth,
      "tool",
      queued.map((r) => [r.toolName, r._count._all]),
    );
    setByLabel(
      g.running,
      "tool",
      leased.map((r) => [r.toolName, r._count._all]),
    );
    g.uncertain.set(uncertain);
    g.uncertainOverdue.set(uncertainOverdue);
    const kinds = Object.values(ReviewItemKind);
    setByLabel(
      g.reviewOpen,
      "kind",
      kinds.map((k) => [k, review.find((r) => r.kind === k)?._count._all ?? 0]),
    );
    setByLabel(
      g.reviewOverdue,
      "kind",
      kinds.map((k) => [k, reviewOverdue.find((r) => r.kind === k)?._count._all ?? 0]),
    );
    g.reviewOldest.set(oldestReview ? Math.max(0, (now.getTime() - oldestReview.createdAt.getTime()) / 1000) : 0);
    g.stopsUnsettled.set(unsettled);
    g.stopsUnsettledOldest.set(oldestUnsettled?.cancelRequestedAt ? Math.max(0, (now.getTime() - oldestUnsettled.cancelRequestedAt.getTime()) / 1000) : 0);
    g.escalationsFailing.set(failing);
    g.escalationsFailed.set(failed);
    g.escalationsPending.set(pending);
    g.leaseHolder.reset();
    g.leaseExpires.reset();
    for (const lease of leases) {
      const left = (lease.expiresAt.getTime() - now.getTime()) / 1000;
      g.leaseHolder.set({ lease: lease.name, holder: lease.owner }, left > 0 ? 1 : 0);
      g.leaseExpires.set({ lease: lease.name }, left);
    }
    setByLabel(
      g.killSwitches,
      "target_kind",
      ["tool", "token"].map((k) => [k, switches.find((s) => s.targetKind === k)?._count._all ?? 0]),
    );
    g.scrapeErrors.set(0);
  } catch (error) {
    g.scrapeErrors.set(1);
    console.error(`metrics: reading the ledger failed (${(error as Error).message.split("\n").at(-1)}); the ledger gauges keep their last values`);
  }
}

/** Replaces a gauge's series: one per label value given (a tool whose queue emptied drops out, as Prometheus expects). */
function setByLabel(gauge: ReturnType<typeof metrics>["gauges"][string], label: string, values: [string, number][]) {
  gauge.reset();
  for (const [value, n] of values) gauge.set({ [label]: value }, n);
}

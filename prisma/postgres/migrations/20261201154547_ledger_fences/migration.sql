-- DropIndex
DROP INDEX "WorkItem_status_createdAt_idx";

-- AlterTable
ALTER TABLE "Task" ADD COLUMN     "cancelPlan" JSONB,
ADD COLUMN     "cancelPlannedAt" TIMESTAMP(3),
ADD COLUMN     "engineLeaseExpiresAt" TIMESTAMP(3),
ADD COLUMN     "engineOwner" TEXT;

-- AlterTable
ALTER TABLE "WorkItem" ADD COLUMN     "cancelAnsweredAt" TIMESTAMP(3),
ADD COLUMN     "cancelDispatchAction" TEXT,
ADD COLUMN     "cancelDispatchedAt" TIMESTAMP(3),
ADD COLUMN     "cancelWithdrawnAt" TIMESTAMP(3),
ADD COLUMN     "checkpointPassedAt" TIMESTAMP(3);

-- AlterTable
ALTER TABLE "ReviewItem" ADD COLUMN     "dedupeKey" TEXT;

-- CreateTable
CREATE TABLE "ProcessLease" (
    "name" TEXT NOT NULL,
    "owner" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ProcessLease_pkey" PRIMARY KEY ("name")
);

-- CreateIndex
CREATE UNIQUE INDEX "ReviewItem_dedupeKey_key" ON "ReviewItem"("dedupeKey");

-- Backfill: the facts that were found by counting events (under the global write lock that is gone now) become
-- the guarded columns above. Events remain the history.
UPDATE "Task" SET "cancelPlannedAt" = (SELECT e."createdAt" FROM "LedgerEvent" e WHERE e."taskId" = "Task"."id" AND e."type" = 'cancellation.planned' ORDER BY e."seq" LIMIT 1),
  "cancelPlan" = (SELECT e."data" FROM "LedgerEvent" e WHERE e."taskId" = "Task"."id" AND e."type" = 'cancellation.planned' ORDER BY e."seq" LIMIT 1)
  WHERE "cancelRequestedAt" IS NOT NULL;
UPDATE "WorkItem" SET "checkpointPassedAt" = (SELECT MAX(e."createdAt") FROM "LedgerEvent" e WHERE e."workItemId" = "WorkItem"."id" AND e."type" = 'checkpoint.passed');
UPDATE "WorkItem" SET "cancelDispatchedAt" = (SELECT MIN(e."createdAt") FROM "LedgerEvent" e WHERE e."workItemId" = "WorkItem"."id" AND e."type" = 'cancellation.dispatched');
UPDATE "WorkItem" SET "cancelWithdrawnAt" = (SELECT MIN(e."createdAt") FROM "LedgerEvent" e WHERE e."workItemId" = "WorkItem"."id" AND e."type" = 'cancellation.withdrawn');
-- A dispatched cancel counts as answered (a crashed run must not block reconciliation for ever).
UPDATE "WorkItem" SET "cancelAnsweredAt" = COALESCE("cancelWithdrawnAt", "cancelDispatchedAt") WHERE "cancelDispatchedAt" IS NOT NULL;

-- Partial indexes (not expressible in Prisma's schema; see the comment on WorkItem in prisma/models.prisma):
-- every state change rewrites a work item's index entries, so each state that is looked for gets its own small index.
CREATE INDEX "WorkItem_queued_idx" ON "WorkItem"("createdAt", "id") WHERE "status" = 'queued';
CREATE INDEX "WorkItem_leased_idx" ON "WorkItem"("leaseExpiresAt") WHERE "leaseToken" IS NOT NULL;
CREATE INDEX "WorkItem_uncertain_idx" ON "WorkItem"("reconcileDeadline") WHERE "status" = 'uncertain';

-- PostgreSQL only, not modelled in Prisma: the id of the transaction that wrote each event. Readers deliver
-- events in (txid, seq) order and only below the oldest transaction still running (pg_snapshot_xmin), so that
-- replay after Last-Event-ID is in order and exactly once without a global write lock (lib/events/read-events.ts).
-- Existing rows get this migration's transaction id: they keep their seq order.
ALTER TABLE "LedgerEvent" ADD COLUMN "txid" xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE INDEX "LedgerEvent_txid_seq_idx" ON "LedgerEvent"("txid", "seq");

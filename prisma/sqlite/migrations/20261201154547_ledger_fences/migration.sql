-- DropIndex
DROP INDEX "WorkItem_status_createdAt_idx";

-- AlterTable
ALTER TABLE "Task" ADD COLUMN "cancelPlan" JSONB;
ALTER TABLE "Task" ADD COLUMN "cancelPlannedAt" DATETIME;
ALTER TABLE "Task" ADD COLUMN "engineLeaseExpiresAt" DATETIME;
ALTER TABLE "Task" ADD COLUMN "engineOwner" TEXT;

-- AlterTable
ALTER TABLE "WorkItem" ADD COLUMN "cancelAnsweredAt" DATETIME;
ALTER TABLE "WorkItem" ADD COLUMN "cancelDispatchAction" TEXT;
ALTER TABLE "WorkItem" ADD COLUMN "cancelDispatchedAt" DATETIME;
ALTER TABLE "WorkItem" ADD COLUMN "cancelWithdrawnAt" DATETIME;
ALTER TABLE "WorkItem" ADD COLUMN "checkpointPassedAt" DATETIME;

-- AlterTable
ALTER TABLE "ReviewItem" ADD COLUMN "dedupeKey" TEXT;

-- CreateTable
CREATE TABLE "ProcessLease" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "owner" TEXT NOT NULL,
    "expiresAt" DATETIME NOT NULL,
    "updatedAt" DATETIME NOT NULL
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

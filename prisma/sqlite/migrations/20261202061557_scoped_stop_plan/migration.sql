-- AlterTable
ALTER TABLE "WorkItem" ADD COLUMN "stopPlan" JSONB;
ALTER TABLE "WorkItem" ADD COLUMN "stopPlannedAt" DATETIME;

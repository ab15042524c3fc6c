-- AlterTable
ALTER TABLE "WorkItem" ADD COLUMN     "stopPlan" JSONB,
ADD COLUMN     "stopPlannedAt" TIMESTAMP(3);

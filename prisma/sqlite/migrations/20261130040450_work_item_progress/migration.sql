-- AlterTable
ALTER TABLE "WorkItem" ADD COLUMN "progress" JSONB;

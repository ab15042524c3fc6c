-- AlterTable
ALTER TABLE "WorkItem" ADD COLUMN "serviceRunningAt" DATETIME;

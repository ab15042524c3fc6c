-- AlterTable
ALTER TABLE "WorkItem" ADD COLUMN     "serviceRunningAt" TIMESTAMP(3);

-- DropIndex
DROP INDEX "WorkItem_taskId_status_idx";

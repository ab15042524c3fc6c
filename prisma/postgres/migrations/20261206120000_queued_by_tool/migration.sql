-- Not modelled in Prisma (a partial index): the queue, now by tool. A claim names the tools its worker serves; on
-- ("createdAt", "id") alone it walked every queued item in creation order and read each one's tool from the table,
-- so queued items of a tool nobody serves (a kill switch, a worker down) were read again by every claim (issue 22
-- §5: 5,000 such items cost a claim of another tool 1.37 ms against 0.04 ms). With the tool leading, a claim scans
-- each of its tools' own queue in creation order and reads nothing else. It replaces the old index: one entry per
-- queued item, as before.
DROP INDEX "WorkItem_queued_idx";
CREATE INDEX "WorkItem_queued_idx" ON "WorkItem"("toolName", "createdAt", "id") WHERE "status" = 'queued';

-- Not modelled in Prisma (a partial index): the queue, now by tool, so that a claim reads only the queues of the
-- tools its worker serves (issue 22 §5; see the PostgreSQL migration of the same name).
DROP INDEX "WorkItem_queued_idx";
CREATE INDEX "WorkItem_queued_idx" ON "WorkItem"("toolName", "createdAt", "id") WHERE "status" = 'queued';

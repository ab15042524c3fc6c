-- Not modelled in Prisma (a partial index): the maintenance pass's read of Stops not yet finished read every task
-- (issue 22 §3; see the PostgreSQL migration of the same name).
CREATE INDEX "Task_stop_unsettled_idx" ON "Task"("cancelRequestedAt") WHERE "cancelRequestedAt" IS NOT NULL AND "settledAt" IS NULL;

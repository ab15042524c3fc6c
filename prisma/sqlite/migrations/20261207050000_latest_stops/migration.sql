-- Not modelled in Prisma (a partial index): the latest Stops, newest first — what the metrics cover (see the
-- PostgreSQL migration of the same name).
CREATE INDEX "Task_stops_idx" ON "Task"("cancelRequestedAt", "id") WHERE "cancelRequestedAt" IS NOT NULL;

-- Not modelled in Prisma (a partial index): the latest Stops, newest first — what the metrics cover
-- (lib/metrics/cancellation-metrics.ts). Without it the metrics read every stopped task's children of the whole
-- history on each refresh (issue 22 §3). Holds only stopped tasks: a task that is never stopped pays nothing.
CREATE INDEX "Task_stops_idx" ON "Task"("cancelRequestedAt", "id") WHERE "cancelRequestedAt" IS NOT NULL;

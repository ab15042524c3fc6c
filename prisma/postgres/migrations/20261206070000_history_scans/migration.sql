-- Not modelled in Prisma (partial indexes): two reads of every maintenance pass scanned the whole history (issue 22
-- §3; bench:pg part H with BENCH_PG_STATS=1 at 1,000,000 finished items and 5,000,000 events: the escalation reader
-- walked all 5,000,000 events per pass while no review item had any, 0.4–0.9 s each; the scoped-Stop sweep read all
-- 1,000,000 work items, 0.1–0.3 s). Each index holds only the few rows its read wants, so the hot path pays nothing.
-- Review items' events in ledger order: the escalation reader's cursor walks these, not every event after it.
CREATE INDEX "LedgerEvent_reviewItem_order_idx" ON "LedgerEvent"("txid", "seq") WHERE "entityType" = 'reviewItem';
-- Scoped Stops (of one child) not yet settled, oldest first: the maintenance pass resumes them.
CREATE INDEX "WorkItem_stop_unsettled_idx" ON "WorkItem"("stopRequestedAt") WHERE "stopRequestedAt" IS NOT NULL AND "stopSettledAt" IS NULL;

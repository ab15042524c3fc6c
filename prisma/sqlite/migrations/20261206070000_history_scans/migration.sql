-- Not modelled in Prisma (partial indexes): two reads of every maintenance pass scanned the whole history (issue 22
-- §3; see the PostgreSQL migration of the same name). Each index holds only the few rows its read wants.
-- Review items' events in ledger order: the escalation reader's cursor walks these, not every event after it.
CREATE INDEX "LedgerEvent_reviewItem_order_idx" ON "LedgerEvent"("seq") WHERE "entityType" = 'reviewItem';
-- Scoped Stops (of one child) not yet settled, oldest first: the maintenance pass resumes them.
CREATE INDEX "WorkItem_stop_unsettled_idx" ON "WorkItem"("stopRequestedAt") WHERE "stopRequestedAt" IS NOT NULL AND "stopSettledAt" IS NULL;

-- Not modelled in Prisma (a partial index): a review item's events by item and type — the escalation reads
-- (enqueue, a late channel's catch-up, the delivery log) find "review_item.opened" / "review_item.escalated" of given
-- items here instead of scanning the whole ledger. Only review item events get an entry, so the hot path's events
-- (claims, completions) pay nothing for it.
CREATE INDEX "LedgerEvent_reviewItem_idx" ON "LedgerEvent"("entityId", "type") WHERE "entityType" = 'reviewItem';

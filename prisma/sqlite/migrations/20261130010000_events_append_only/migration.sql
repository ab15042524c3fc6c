-- Invariant 9: ledger events are never updated or deleted.
CREATE TRIGGER "LedgerEvent_no_update" BEFORE UPDATE ON "LedgerEvent"
BEGIN SELECT RAISE(ABORT, 'LedgerEvent is append-only'); END;
CREATE TRIGGER "LedgerEvent_no_delete" BEFORE DELETE ON "LedgerEvent"
BEGIN SELECT RAISE(ABORT, 'LedgerEvent is append-only'); END;

-- Invariant 9: ledger events are never updated or deleted.
CREATE FUNCTION "ledger_event_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION 'LedgerEvent is append-only'; END; $$;
CREATE TRIGGER "LedgerEvent_no_update_delete" BEFORE UPDATE OR DELETE ON "LedgerEvent"
FOR EACH ROW EXECUTE FUNCTION "ledger_event_append_only"();

-- CreateTable
CREATE TABLE "ArchivedTask" (
    "taskId" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "ownerId" TEXT NOT NULL,
    "conversationId" TEXT,
    "stage" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "settledAt" TIMESTAMP(3) NOT NULL,
    "archivePath" TEXT NOT NULL,
    "archivedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ArchivedTask_pkey" PRIMARY KEY ("taskId")
);

-- CreateIndex
CREATE INDEX "ArchivedTask_ownerId_settledAt_idx" ON "ArchivedTask"("ownerId", "settledAt");

-- CreateIndex
CREATE INDEX "ArchivedTask_conversationId_idx" ON "ArchivedTask"("conversationId");

-- CreateIndex
CREATE INDEX "ArchivedTask_archivePath_idx" ON "ArchivedTask"("archivePath");

-- Invariant 9 with retention (lib/retention): ledger events are never updated; they are deleted only when their task
-- left the hot tables — its ArchivedTask row, written in the same transaction after the archive file was fsynced.
CREATE OR REPLACE FUNCTION "ledger_event_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND OLD."taskId" IS NOT NULL AND EXISTS (SELECT 1 FROM "ArchivedTask" a WHERE a."taskId" = OLD."taskId") THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'LedgerEvent is append-only';
END; $$;

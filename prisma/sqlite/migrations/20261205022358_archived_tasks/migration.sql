-- CreateTable
CREATE TABLE "ArchivedTask" (
    "taskId" TEXT NOT NULL PRIMARY KEY,
    "title" TEXT NOT NULL,
    "ownerId" TEXT NOT NULL,
    "conversationId" TEXT,
    "stage" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL,
    "settledAt" DATETIME NOT NULL,
    "archivePath" TEXT NOT NULL,
    "archivedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE INDEX "ArchivedTask_ownerId_settledAt_idx" ON "ArchivedTask"("ownerId", "settledAt");

-- CreateIndex
CREATE INDEX "ArchivedTask_conversationId_idx" ON "ArchivedTask"("conversationId");

-- CreateIndex
CREATE INDEX "ArchivedTask_archivePath_idx" ON "ArchivedTask"("archivePath");

-- Invariant 9 with retention (lib/retention): ledger events are never updated; they are deleted only when their task
-- left the hot tables — its ArchivedTask row, written in the same transaction after the archive file was fsynced.
DROP TRIGGER "LedgerEvent_no_delete";
CREATE TRIGGER "LedgerEvent_no_delete" BEFORE DELETE ON "LedgerEvent"
WHEN OLD."taskId" IS NULL OR NOT EXISTS (SELECT 1 FROM "ArchivedTask" a WHERE a."taskId" = OLD."taskId")
BEGIN SELECT RAISE(ABORT, 'LedgerEvent is append-only'); END;

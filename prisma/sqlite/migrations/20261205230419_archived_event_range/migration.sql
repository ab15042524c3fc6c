-- AlterTable
ALTER TABLE "ArchivedTask" ADD COLUMN "firstEventSeq" INTEGER;
ALTER TABLE "ArchivedTask" ADD COLUMN "lastEventSeq" INTEGER;

-- CreateIndex
CREATE INDEX "ArchivedTask_lastEventSeq_idx" ON "ArchivedTask"("lastEventSeq");

-- AlterTable
ALTER TABLE "Task" ADD COLUMN "endReason" TEXT;
ALTER TABLE "Task" ADD COLUMN "endedAt" DATETIME;
ALTER TABLE "Task" ADD COLUMN "settledAt" DATETIME;
ALTER TABLE "Task" ADD COLUMN "turnId" TEXT;

-- AlterTable
ALTER TABLE "SideEffect" ADD COLUMN "evidence" JSONB;

-- CreateIndex
CREATE UNIQUE INDEX "Task_conversationId_turnId_key" ON "Task"("conversationId", "turnId");

-- Cancellations settled before settledAt existed: their engine pass is long over.
UPDATE "Task" SET "settledAt" = "updatedAt" WHERE "stage" = 'cancelled';

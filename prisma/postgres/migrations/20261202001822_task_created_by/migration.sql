-- AlterTable
ALTER TABLE "Task" ADD COLUMN     "createdById" TEXT;

-- CreateIndex
CREATE INDEX "Task_createdById_idx" ON "Task"("createdById");

-- AlterTable
ALTER TABLE "Task" ADD COLUMN     "cancelScope" TEXT,
ADD COLUMN     "cancelScopeRef" TEXT;

-- AlterTable
ALTER TABLE "WorkItem" ADD COLUMN     "stopIncidentId" TEXT,
ADD COLUMN     "stopReason" TEXT,
ADD COLUMN     "stopRequestedAt" TIMESTAMP(3),
ADD COLUMN     "stopRequestedBy" TEXT,
ADD COLUMN     "stopRequestedById" TEXT,
ADD COLUMN     "stopRootId" TEXT,
ADD COLUMN     "stopSettledAt" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "Incident" (
    "id" TEXT NOT NULL,
    "targetKind" TEXT NOT NULL,
    "target" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'active',
    "openedBy" TEXT NOT NULL,
    "openedById" TEXT,
    "liftRequestedAt" TIMESTAMP(3),
    "liftRequestedBy" TEXT,
    "liftRequestedById" TEXT,
    "liftReason" TEXT,
    "liftedAt" TIMESTAMP(3),
    "liftedBy" TEXT,
    "liftedById" TEXT,
    "rowVersion" INTEGER NOT NULL DEFAULT 1,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Incident_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Incident_targetKind_target_state_idx" ON "Incident"("targetKind", "target", "state");

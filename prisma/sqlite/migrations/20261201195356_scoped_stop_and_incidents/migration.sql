-- AlterTable
ALTER TABLE "Task" ADD COLUMN "cancelScope" TEXT;
ALTER TABLE "Task" ADD COLUMN "cancelScopeRef" TEXT;

-- AlterTable
ALTER TABLE "WorkItem" ADD COLUMN "stopIncidentId" TEXT;
ALTER TABLE "WorkItem" ADD COLUMN "stopReason" TEXT;
ALTER TABLE "WorkItem" ADD COLUMN "stopRequestedAt" DATETIME;
ALTER TABLE "WorkItem" ADD COLUMN "stopRequestedBy" TEXT;
ALTER TABLE "WorkItem" ADD COLUMN "stopRequestedById" TEXT;
ALTER TABLE "WorkItem" ADD COLUMN "stopRootId" TEXT;
ALTER TABLE "WorkItem" ADD COLUMN "stopSettledAt" DATETIME;

-- CreateTable
CREATE TABLE "Incident" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "targetKind" TEXT NOT NULL,
    "target" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'active',
    "openedBy" TEXT NOT NULL,
    "openedById" TEXT,
    "liftRequestedAt" DATETIME,
    "liftRequestedBy" TEXT,
    "liftRequestedById" TEXT,
    "liftReason" TEXT,
    "liftedAt" DATETIME,
    "liftedBy" TEXT,
    "liftedById" TEXT,
    "rowVersion" INTEGER NOT NULL DEFAULT 1,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "Incident_targetKind_target_state_idx" ON "Incident"("targetKind", "target", "state");

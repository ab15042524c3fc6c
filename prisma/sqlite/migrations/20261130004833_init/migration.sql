-- CreateTable
CREATE TABLE "Task" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "ownerId" TEXT NOT NULL,
    "conversationId" TEXT,
    "title" TEXT NOT NULL,
    "riskLevel" TEXT NOT NULL DEFAULT 'low',
    "stage" TEXT NOT NULL DEFAULT 'active',
    "intentVersion" INTEGER NOT NULL DEFAULT 1,
    "proposalVersion" INTEGER NOT NULL DEFAULT 0,
    "cancelRequestedAt" DATETIME,
    "cancelReason" TEXT,
    "cancelRequestedBy" TEXT,
    "cancelIntentVersion" INTEGER,
    "rowVersion" INTEGER NOT NULL DEFAULT 1,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "WorkItem" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "taskId" TEXT NOT NULL,
    "parentWorkItemId" TEXT,
    "kind" TEXT NOT NULL,
    "toolName" TEXT NOT NULL,
    "correlationId" TEXT NOT NULL,
    "input" JSONB,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "preparedIntentVersion" INTEGER NOT NULL,
    "proposalVersion" INTEGER,
    "mechanism" TEXT NOT NULL,
    "commitsEffect" BOOLEAN NOT NULL DEFAULT false,
    "operationId" TEXT,
    "providerRef" TEXT,
    "idempotencyKey" TEXT NOT NULL,
    "leaseOwner" TEXT,
    "leaseToken" TEXT,
    "leaseExpiresAt" DATETIME,
    "heartbeatAt" DATETIME,
    "attempt" INTEGER NOT NULL DEFAULT 0,
    "partialResult" JSONB,
    "partialComplete" BOOLEAN,
    "result" JSONB,
    "error" TEXT,
    "reconcileDeadline" DATETIME,
    "rowVersion" INTEGER NOT NULL DEFAULT 1,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" DATETIME,
    "submittedAt" DATETIME,
    "finishedAt" DATETIME,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "WorkItem_taskId_fkey" FOREIGN KEY ("taskId") REFERENCES "Task" ("id") ON DELETE RESTRICT ON UPDATE CASCADE,
    CONSTRAINT "WorkItem_parentWorkItemId_fkey" FOREIGN KEY ("parentWorkItemId") REFERENCES "WorkItem" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Resource" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "taskId" TEXT NOT NULL,
    "workItemId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "handle" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'held',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "verifiedAt" DATETIME,
    "rowVersion" INTEGER NOT NULL DEFAULT 1,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Resource_taskId_fkey" FOREIGN KEY ("taskId") REFERENCES "Task" ("id") ON DELETE RESTRICT ON UPDATE CASCADE,
    CONSTRAINT "Resource_workItemId_fkey" FOREIGN KEY ("workItemId") REFERENCES "WorkItem" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "SideEffect" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "taskId" TEXT NOT NULL,
    "workItemId" TEXT NOT NULL,
    "operationId" TEXT NOT NULL,
    "providerRef" TEXT,
    "externalRecordId" TEXT,
    "externalVersion" TEXT,
    "reversible" BOOLEAN NOT NULL DEFAULT false,
    "description" TEXT,
    "outcome" TEXT NOT NULL DEFAULT 'unknown',
    "rowVersion" INTEGER NOT NULL DEFAULT 1,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "SideEffect_taskId_fkey" FOREIGN KEY ("taskId") REFERENCES "Task" ("id") ON DELETE RESTRICT ON UPDATE CASCADE,
    CONSTRAINT "SideEffect_workItemId_fkey" FOREIGN KEY ("workItemId") REFERENCES "WorkItem" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ReviewItem" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "taskId" TEXT NOT NULL,
    "workItemId" TEXT,
    "sideEffectId" TEXT,
    "resourceId" TEXT,
    "kind" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "proposal" JSONB,
    "deadline" DATETIME NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'open',
    "assignee" TEXT,
    "requestedBy" TEXT,
    "decidedBy" TEXT,
    "decidedAt" DATETIME,
    "resolution" TEXT,
    "rowVersion" INTEGER NOT NULL DEFAULT 1,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "ReviewItem_taskId_fkey" FOREIGN KEY ("taskId") REFERENCES "Task" ("id") ON DELETE RESTRICT ON UPDATE CASCADE,
    CONSTRAINT "ReviewItem_workItemId_fkey" FOREIGN KEY ("workItemId") REFERENCES "WorkItem" ("id") ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT "ReviewItem_sideEffectId_fkey" FOREIGN KEY ("sideEffectId") REFERENCES "SideEffect" ("id") ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT "ReviewItem_resourceId_fkey" FOREIGN KEY ("resourceId") REFERENCES "Resource" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "LedgerEvent" (
    "seq" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "taskId" TEXT,
    "workItemId" TEXT,
    "entityType" TEXT NOT NULL,
    "entityId" TEXT NOT NULL,
    "actor" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "fromState" TEXT,
    "toState" TEXT,
    "reason" TEXT,
    "data" JSONB,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "ApiToken" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" DATETIME,
    "revokedAt" DATETIME
);

-- CreateIndex
CREATE INDEX "Task_conversationId_idx" ON "Task"("conversationId");

-- CreateIndex
CREATE INDEX "Task_stage_idx" ON "Task"("stage");

-- CreateIndex
CREATE INDEX "Task_ownerId_idx" ON "Task"("ownerId");

-- CreateIndex
CREATE INDEX "WorkItem_status_createdAt_idx" ON "WorkItem"("status", "createdAt");

-- CreateIndex
CREATE INDEX "WorkItem_taskId_status_idx" ON "WorkItem"("taskId", "status");

-- CreateIndex
CREATE UNIQUE INDEX "WorkItem_taskId_correlationId_key" ON "WorkItem"("taskId", "correlationId");

-- CreateIndex
CREATE UNIQUE INDEX "WorkItem_idempotencyKey_key" ON "WorkItem"("idempotencyKey");

-- CreateIndex
CREATE INDEX "Resource_taskId_state_idx" ON "Resource"("taskId", "state");

-- CreateIndex
CREATE UNIQUE INDEX "Resource_workItemId_type_handle_key" ON "Resource"("workItemId", "type", "handle");

-- CreateIndex
CREATE UNIQUE INDEX "SideEffect_operationId_key" ON "SideEffect"("operationId");

-- CreateIndex
CREATE INDEX "SideEffect_taskId_outcome_idx" ON "SideEffect"("taskId", "outcome");

-- CreateIndex
CREATE INDEX "ReviewItem_status_deadline_idx" ON "ReviewItem"("status", "deadline");

-- CreateIndex
CREATE INDEX "ReviewItem_taskId_idx" ON "ReviewItem"("taskId");

-- CreateIndex
CREATE INDEX "LedgerEvent_taskId_seq_idx" ON "LedgerEvent"("taskId", "seq");

-- CreateIndex
CREATE UNIQUE INDEX "ApiToken_tokenHash_key" ON "ApiToken"("tokenHash");

-- CreateTable
CREATE TABLE "EscalationChannel" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "secret" TEXT,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "EscalationDelivery" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "channelId" TEXT NOT NULL,
    "reviewItemId" TEXT NOT NULL,
    "taskId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastAttemptAt" DATETIME,
    "lastError" TEXT,
    "responseStatus" INTEGER,
    "attemptLog" JSONB,
    "payload" JSONB NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deliveredAt" DATETIME,
    CONSTRAINT "EscalationDelivery_channelId_fkey" FOREIGN KEY ("channelId") REFERENCES "EscalationChannel" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "EscalationCursor" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "seq" INTEGER NOT NULL DEFAULT 0,
    "updatedAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "EscalationChannel_active_idx" ON "EscalationChannel"("active");

-- CreateIndex
CREATE INDEX "EscalationDelivery_status_nextAttemptAt_idx" ON "EscalationDelivery"("status", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "EscalationDelivery_reviewItemId_idx" ON "EscalationDelivery"("reviewItemId");

-- CreateIndex
CREATE INDEX "EscalationDelivery_createdAt_idx" ON "EscalationDelivery"("createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "EscalationDelivery_channelId_reviewItemId_kind_key" ON "EscalationDelivery"("channelId", "reviewItemId", "kind");

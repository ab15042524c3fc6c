-- CreateTable
CREATE TABLE "EscalationChannel" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "secret" TEXT,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "EscalationChannel_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "EscalationDelivery" (
    "id" TEXT NOT NULL,
    "channelId" TEXT NOT NULL,
    "reviewItemId" TEXT NOT NULL,
    "taskId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastAttemptAt" TIMESTAMP(3),
    "lastError" TEXT,
    "responseStatus" INTEGER,
    "attemptLog" JSONB,
    "payload" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deliveredAt" TIMESTAMP(3),

    CONSTRAINT "EscalationDelivery_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "EscalationCursor" (
    "id" TEXT NOT NULL,
    "seq" INTEGER NOT NULL DEFAULT 0,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "EscalationCursor_pkey" PRIMARY KEY ("id")
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

-- AddForeignKey
ALTER TABLE "EscalationDelivery" ADD CONSTRAINT "EscalationDelivery_channelId_fkey" FOREIGN KEY ("channelId") REFERENCES "EscalationChannel"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- CreateTable
CREATE TABLE "ToolHost" (
    "id" TEXT NOT NULL,
    "hostId" TEXT NOT NULL,
    "toolName" TEXT NOT NULL,
    "principalId" TEXT NOT NULL,
    "capabilities" JSONB NOT NULL,
    "risk" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ToolHost_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ToolRequest" (
    "id" TEXT NOT NULL,
    "toolName" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "claimedBy" TEXT,
    "claimedAt" TIMESTAMP(3),
    "answer" JSONB,
    "answeredAt" TIMESTAMP(3),
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ToolRequest_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "ToolHost_toolName_expiresAt_idx" ON "ToolHost"("toolName", "expiresAt");

-- CreateIndex
CREATE UNIQUE INDEX "ToolHost_toolName_hostId_key" ON "ToolHost"("toolName", "hostId");

-- CreateIndex
CREATE INDEX "ToolRequest_toolName_claimedBy_expiresAt_idx" ON "ToolRequest"("toolName", "claimedBy", "expiresAt");

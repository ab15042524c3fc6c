-- CreateTable
CREATE TABLE "ToolHost" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "hostId" TEXT NOT NULL,
    "toolName" TEXT NOT NULL,
    "principalId" TEXT NOT NULL,
    "capabilities" JSONB NOT NULL,
    "risk" TEXT NOT NULL,
    "expiresAt" DATETIME NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "ToolRequest" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "toolName" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "claimedBy" TEXT,
    "claimedAt" DATETIME,
    "answer" JSONB,
    "answeredAt" DATETIME,
    "expiresAt" DATETIME NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE INDEX "ToolHost_toolName_expiresAt_idx" ON "ToolHost"("toolName", "expiresAt");

-- CreateIndex
CREATE UNIQUE INDEX "ToolHost_toolName_hostId_key" ON "ToolHost"("toolName", "hostId");

-- CreateIndex
CREATE INDEX "ToolRequest_toolName_claimedBy_expiresAt_idx" ON "ToolRequest"("toolName", "claimedBy", "expiresAt");

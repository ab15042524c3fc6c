-- AlterTable
ALTER TABLE "Task" ADD COLUMN "cancelRequestedById" TEXT;

-- CreateTable
CREATE TABLE "ConsoleSession" (
    "idHash" TEXT NOT NULL PRIMARY KEY,
    "tokenId" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "RateLimitBucket" (
    "key" TEXT NOT NULL PRIMARY KEY,
    "windowStart" DATETIME NOT NULL,
    "count" INTEGER NOT NULL,
    "updatedAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "ConsoleSession_tokenId_idx" ON "ConsoleSession"("tokenId");

-- AlterTable
ALTER TABLE "Task" ADD COLUMN     "cancelRequestedById" TEXT;

-- CreateTable
CREATE TABLE "ConsoleSession" (
    "idHash" TEXT NOT NULL,
    "tokenId" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ConsoleSession_pkey" PRIMARY KEY ("idHash")
);

-- CreateTable
CREATE TABLE "RateLimitBucket" (
    "key" TEXT NOT NULL,
    "windowStart" TIMESTAMP(3) NOT NULL,
    "count" INTEGER NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "RateLimitBucket_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "ConsoleSession_tokenId_idx" ON "ConsoleSession"("tokenId");

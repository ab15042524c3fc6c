-- AlterTable
ALTER TABLE "Task" ADD COLUMN     "proposal" JSONB;

-- AlterTable
ALTER TABLE "Agent" ADD COLUMN "setupAt" DATETIME;
ALTER TABLE "Agent" ADD COLUMN "setupHash" TEXT;
ALTER TABLE "Agent" ADD COLUMN "setupOutput" TEXT;
ALTER TABLE "Agent" ADD COLUMN "setupStatus" TEXT;

-- AlterTable
ALTER TABLE "Task" ADD COLUMN "lastActivity" TEXT;
ALTER TABLE "Task" ADD COLUMN "lastActivityAt" DATETIME;
ALTER TABLE "Task" ADD COLUMN "lastAgentId" TEXT;
ALTER TABLE "Task" ADD COLUMN "retryAt" DATETIME;
ALTER TABLE "Task" ADD COLUMN "timeLimitMinutes" REAL;

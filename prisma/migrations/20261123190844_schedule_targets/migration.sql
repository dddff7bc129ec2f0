-- Schedule targets (one agent, the leads, every agent, a role, a tag, the pool)
-- and runs that fan out to several tasks or say why a target got none.
ALTER TABLE "Schedule" ADD COLUMN "targetKind" TEXT NOT NULL DEFAULT 'pool';
ALTER TABLE "Schedule" ADD COLUMN "targetValue" TEXT;
UPDATE "Schedule" SET "targetKind" = 'agent' WHERE "agentId" IS NOT NULL;

ALTER TABLE "ScheduleRun" ADD COLUMN "taskIds" TEXT NOT NULL DEFAULT '[]';
ALTER TABLE "ScheduleRun" ADD COLUMN "skips" TEXT NOT NULL DEFAULT '[]';
UPDATE "ScheduleRun" SET "taskIds" = json_array("taskId") WHERE "taskId" IS NOT NULL;

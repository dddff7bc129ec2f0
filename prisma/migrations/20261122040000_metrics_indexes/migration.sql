-- Failure recurrence reads failed tasks by finish time without touching the others.
CREATE INDEX "Task_status_finishedAt_idx" ON "Task"("status", "finishedAt");

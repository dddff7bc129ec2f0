-- CreateIndex
CREATE INDEX "TaskEvent_type_createdAt_idx" ON "TaskEvent"("type", "createdAt");

-- The claim's picks (lib/tasks/dispatch.pg.ts) in the order they read tasks:
-- priority desc, then createdAt, id. With these an index scan walks the waiting
-- tasks in claim order and FOR UPDATE SKIP LOCKED steps past rows other claims
-- hold, instead of sorting the whole pool on every poll. Partial: only waiting
-- tasks are in them, so they stay small however many tasks have finished.
CREATE INDEX "Task_pool_claim_idx" ON "Task" ("priority" DESC, "createdAt", "id") WHERE "status" = 'unassigned';

CREATE INDEX "Task_pending_claim_idx" ON "Task" ("agentId", "priority" DESC, "createdAt", "id") WHERE "status" = 'pending';

-- An operator's identity grant on a task (JSON array of identity kinds); ADD COLUMN, not a table copy: Task is the biggest table.
ALTER TABLE "Task" ADD COLUMN "identityGrant" TEXT NOT NULL DEFAULT '[]';

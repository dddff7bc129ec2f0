-- The audit chain's head (PostgreSQL only): one row holding the last event's hash.
-- Every append updates it in the statement that inserts the event, so appends from
-- every app instance line up on its row lock (lib/audit/audit-log.pg.ts).
CREATE TABLE "AuditChainHead" (
    "id" INTEGER NOT NULL,
    "prevHash" TEXT NOT NULL,
    "hash" TEXT NOT NULL,

    CONSTRAINT "AuditChainHead_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "AuditChainHead_one_row" CHECK ("id" = 1)
);

-- Where the chain stands now (the genesis hash when it is empty).
INSERT INTO "AuditChainHead" ("id", "prevHash", "hash")
SELECT 1, '', COALESCE((SELECT "hash" FROM "AuditEvent" ORDER BY "id" DESC LIMIT 1), repeat('0', 64));

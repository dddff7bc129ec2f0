-- The memory change log (PostgreSQL only): every app instance keeps its own
-- in-process vector index over "Memory" (lib/memory/search-index.ts), and with
-- several instances on one database each must see the rows the others insert,
-- re-embed, archive or delete. A trigger appends the id of every such row here;
-- an instance reads the changes after the last one it saw before each search
-- (lib/memory/search-index.pg.ts), one indexed range read that finds nothing when
-- nothing changed. "seq" is assigned when the row changes, so a change can
-- become visible after a later one commits: readers re-check such gaps for a
-- while. The leader prunes changes older than a day (lib/memory/hygiene.pg.ts).
CREATE TABLE "MemoryChange" (
    "seq" BIGSERIAL NOT NULL,
    "memoryId" INTEGER NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "MemoryChange_pkey" PRIMARY KEY ("seq")
);

-- The body is written with \003B for its semicolons: the migration engine
-- splits a migration.sql at every semicolon, even inside a function body.
CREATE FUNCTION "swarmdeck_memory_changed"() RETURNS trigger LANGUAGE plpgsql AS U&'
BEGIN
    IF TG_OP = ''DELETE'' THEN
        INSERT INTO "MemoryChange" ("memoryId") VALUES (OLD."id")\003B
    ELSE
        INSERT INTO "MemoryChange" ("memoryId") VALUES (NEW."id")\003B
    END IF\003B
    RETURN NULL\003B
END
';

CREATE TRIGGER "Memory_changed_insert" AFTER INSERT ON "Memory"
    FOR EACH ROW EXECUTE FUNCTION "swarmdeck_memory_changed"();

CREATE TRIGGER "Memory_changed_delete" AFTER DELETE ON "Memory"
    FOR EACH ROW EXECUTE FUNCTION "swarmdeck_memory_changed"();

-- Only what the vector index holds or filters by: an access count or a
-- duplicate flag changes nothing there.
CREATE TRIGGER "Memory_changed_update" AFTER UPDATE OF "embedding", "embeddingStatus", "embeddingModel", "embeddingDims",
        "archivedAt", "supersededById", "scope", "agentId", "name", "content", "expiresAt" ON "Memory"
    FOR EACH ROW
    WHEN (OLD."embedding" IS DISTINCT FROM NEW."embedding"
        OR OLD."embeddingStatus" IS DISTINCT FROM NEW."embeddingStatus"
        OR OLD."embeddingModel" IS DISTINCT FROM NEW."embeddingModel"
        OR OLD."embeddingDims" IS DISTINCT FROM NEW."embeddingDims"
        OR OLD."archivedAt" IS DISTINCT FROM NEW."archivedAt"
        OR OLD."supersededById" IS DISTINCT FROM NEW."supersededById"
        OR OLD."scope" IS DISTINCT FROM NEW."scope"
        OR OLD."agentId" IS DISTINCT FROM NEW."agentId"
        OR OLD."name" IS DISTINCT FROM NEW."name"
        OR OLD."content" IS DISTINCT FROM NEW."content"
        OR OLD."expiresAt" IS DISTINCT FROM NEW."expiresAt")
    EXECUTE FUNCTION "swarmdeck_memory_changed"();

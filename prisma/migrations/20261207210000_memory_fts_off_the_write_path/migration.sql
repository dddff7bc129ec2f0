-- The FTS5 index over memories off the write path: an insert no longer indexes the
-- memory (FTS5 wrote a segment for every group commit of single writes, most of an
-- insert's cost). lib/memory/fts-backlog.ts indexes the rows above the mark in
-- batches, in the background and before every FTS5 query. Every row there is now
-- was indexed by the insert trigger, so the mark starts at the highest id.
CREATE TABLE "memory_fts_mark" (
    "id" INTEGER NOT NULL PRIMARY KEY CHECK ("id" = 1),
    "upTo" INTEGER NOT NULL
);
INSERT INTO "memory_fts_mark" ("id", "upTo") SELECT 1, COALESCE(MAX("id"), 0) FROM "Memory";

DROP TRIGGER "memory_fts_after_insert";

-- Deletes and changes reach the index only for rows it holds; a row above the mark is
-- indexed as it is when its turn comes.
DROP TRIGGER "memory_fts_after_delete";
CREATE TRIGGER "memory_fts_after_delete" AFTER DELETE ON "Memory"
WHEN old.id <= (SELECT "upTo" FROM "memory_fts_mark" WHERE "id" = 1) BEGIN
    INSERT INTO "memory_fts"("memory_fts", rowid, name, content) VALUES ('delete', old.id, old.name, old.content);
END;

DROP TRIGGER "memory_fts_after_update";
CREATE TRIGGER "memory_fts_after_update" AFTER UPDATE OF name, content ON "Memory"
WHEN old.id <= (SELECT "upTo" FROM "memory_fts_mark" WHERE "id" = 1) BEGIN
    INSERT INTO "memory_fts"("memory_fts", rowid, name, content) VALUES ('delete', old.id, old.name, old.content);
    INSERT INTO "memory_fts"(rowid, name, content) VALUES (new.id, new.name, new.content);
END;

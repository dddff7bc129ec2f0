// The FTS5 index over memories (memory_fts, SQLite only) kept off the write path.
// Inserting a memory does not index it: FTS5 writes a segment of its own for every
// transaction that indexes something, and the group commit of single writes
// (lib/db.ts) indexed 16 or so memories a commit, so FTS5 was most of an insert's
// cost. Instead the rows written since memory_fts_mark.upTo (the highest Memory.id
// the index holds; ids only grow) are indexed in batches: in the background
// (lib/memory/jobs.ts) and, before every FTS5 query, by the query itself
// (catchUpFts), so no FTS5 query misses a memory written before it. The delete and
// update triggers touch only rows at or under the mark (the migration
// 20261207210000_memory_fts_off_the_write_path).
//
// FTS5 answers only what the in-memory keyword index (keyword-search.ts) cannot: the
// operator's list filter, searches while that index loads, and stop-word queries.
import "server-only";
import type Database from "better-sqlite3";
import { prepare, usesPostgres, withSqlite, writeTransaction } from "@/lib/db";

/** Rows indexed in one transaction: a few milliseconds of work, so requests waiting for the connection wait little. */
export const FTS_BATCH = 500;

type Step = (limit: number) => number;
const steps = new WeakMap<Database.Database, Step>();

/** The transaction of one batch, made once per connection (BEGIN IMMEDIATE, or a savepoint inside a transaction). */
function step(sqlite: Database.Database): Step {
  let run = steps.get(sqlite);
  if (!run) {
    run = sqlite.transaction((limit: number) => {
      const mark = prepare(sqlite, "SELECT upTo FROM memory_fts_mark WHERE id = 1").get() as { upTo: number } | undefined;
      if (!mark) throw new Error("memory_fts_mark has no row: the database was not migrated (npm run db:deploy)");
      const { last, count } = prepare(
        sqlite,
        "SELECT MAX(id) AS last, COUNT(*) AS count FROM (SELECT id FROM Memory WHERE id > ? ORDER BY id LIMIT ?)",
      ).get(mark.upTo, limit) as { last: number | null; count: number };
      if (last === null) return 0;
      prepare(sqlite, "INSERT INTO memory_fts (rowid, name, content) SELECT id, name, content FROM Memory WHERE id > ? AND id <= ?").run(
        mark.upTo,
        last,
      );
      prepare(sqlite, "UPDATE memory_fts_mark SET upTo = ? WHERE id = 1").run(last);
      return count;
    }).immediate;
    steps.set(sqlite, run);
  }
  return run;
}

/** Indexes up to `limit` of the rows written since the mark, in order; returns how many it indexed. */
export function indexFtsBacklog(sqlite: Database.Database, limit = FTS_BATCH): number {
  return step(sqlite)(limit);
}

/** Whether some memory is not in the index yet (two index lookups). */
export function hasFtsBacklog(sqlite: Database.Database): boolean {
  const row = prepare(sqlite, "SELECT (SELECT MAX(id) FROM Memory) > (SELECT upTo FROM memory_fts_mark WHERE id = 1) AS behind").get() as {
    behind: number | null;
  };
  return row.behind === 1;
}

/** Brings the index up to date, on the caller's connection block: what every FTS5 query runs first. */
export function catchUpFts(sqlite: Database.Database): void {
  if (!hasFtsBacklog(sqlite)) return;
  let indexed = FTS_BATCH;
  while (indexed === FTS_BATCH) indexed = indexFtsBacklog(sqlite);
}

const globalState = globalThis as unknown as { swarmdeckFtsDrain?: Promise<void> | null };

/**
 * The background catch-up: a batch per write transaction (sharing the group commit),
 * yielding to requests between batches, until the index holds every memory. One at a time.
 */
export function drainFtsBacklog(): Promise<void> {
  if (usesPostgres()) return Promise.resolve();
  globalState.swarmdeckFtsDrain ??= (async () => {
    try {
      if (!(await withSqlite(hasFtsBacklog))) return;
      while ((await writeTransaction((sqlite) => indexFtsBacklog(sqlite))) === FTS_BATCH) {
        await new Promise((resolve) => setImmediate(resolve));
      }
    } catch (error) {
      console.error("[swarmdeck] memory keyword index (FTS5) catch-up failed", error);
    } finally {
      globalState.swarmdeckFtsDrain = null;
    }
  })();
  return globalState.swarmdeckFtsDrain;
}

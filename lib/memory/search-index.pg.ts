// The PostgreSQL twin of search-index.ts: the same in-process vector index
// (vector-index.ts), loaded in pages from "Memory", re-scored from the stored
// floats, and, what differs, kept in step with the table on every app instance.
//
// Several instances write to one database, so an instance's own write paths
// (afterStore, the embedder, dropFromIndexes) no longer see every change: the
// index follows the change log (change-log.pg.ts). `catchUpIndexPg` (before every
// search, before hygiene's duplicate check, and every few seconds from jobs.ts)
// applies the changes committed since the last one this instance saw, re-reading
// each changed memory's current row: embedded and live, its vector is (re)added;
// otherwise it leaves the index.
import "server-only";
import { pgSql, type Sql } from "@/lib/pg";
import { ChangeFollower } from "./change-log.pg";
import { activeEmbedder } from "./embedders";
import { addStoredRows, bestOf, cosinesOf, indexState, startIndexLoad } from "./search-index";
import { type VectorHit, type VectorIndex, vectorFromHex } from "./vector-index";

const PAGE = 2000;

/** The loaded index and the follower that keeps it in step (a new pair on each load). */
type Sync = { index: VectorIndex; follower: ChangeFollower };
const globalSync = globalThis as unknown as { swarmdeckMemoryIndexSync?: Sync };

/** Starts loading the index (idempotent); resolves when it is complete and caught up. */
export function ensureIndexPg(): Promise<void> {
  return startIndexLoad({
    // The first page is the sample the center is taken from.
    sample: (dims, model) => storedPagePg(pgSql(), 0, dims, model),
    load: (index, model) => loadPagesPg(index, model),
  });
}

/** Up to PAGE embedded, live memories of the model after id `after`, in id order, vectors as hex. */
function storedPagePg(sql: Sql, after: number, dims: number, model: string) {
  return sql.all<{ id: number; agentId: string | null; scope: string; embedding: string | null }>(
    `SELECT "id", "agentId", "scope", encode("embedding", 'hex') AS "embedding" FROM "Memory"
     WHERE "id" > $1 AND "embeddingStatus" = 'done' AND "archivedAt" IS NULL AND "embeddingDims" = $2 AND "embeddingModel" = $3
     ORDER BY "id" LIMIT ${PAGE}`,
    [after, dims, model],
  );
}

/** Every embedded memory into `index` in pages, then the changes committed meanwhile (loadPages in search-index.ts). */
async function loadPagesPg(index: VectorIndex, model: string): Promise<void> {
  const sql = pgSql();
  const follower = new ChangeFollower((sql, ids) => applyChanged(sql, index, model, ids));
  // Where the change log stands before the load: what changes while it runs is applied after.
  await follower.startFrom(sql);
  let after = 0;
  const vector = new Float32Array(index.dims);
  for (;;) {
    const rows = await storedPagePg(sql, after, index.dims, model);
    addStoredRows(index, rows, vector);
    after = rows.at(-1)?.id ?? after;
    if (rows.length < PAGE) break;
  }
  await follower.catchUp();
  // Only now does this index's follower take over: an index loaded to replace the
  // one in use (startIndexLoad) leaves that one following the log until then.
  globalSync.swarmdeckMemoryIndexSync = { index, follower };
}

/**
 * Brings this instance's index up to date with every committed change to
 * "Memory", whoever made it; a search after it sees the writes committed before it asked.
 */
export async function catchUpIndexPg(): Promise<void> {
  const s = indexState();
  const sync = globalSync.swarmdeckMemoryIndexSync;
  if (!activeEmbedder() || !s.ready || !s.index || sync?.index !== s.index) return;
  if (sync.follower.stale) {
    // The change log may have been pruned past what this instance saw: load again.
    s.loading = null;
    s.ready = false;
    void ensureIndexPg();
    return;
  }
  await sync.follower.catchUp();
}

/** Re-reads changed memories: the embedded, live ones are (re)added, the rest leave the index. */
async function applyChanged(sql: Sql, index: VectorIndex, model: string, ids: number[]): Promise<void> {
  const rows = await sql.all<{ id: number; agentId: string | null; scope: string; embedding: string | null }>(
    `SELECT "id", "agentId", "scope",
       CASE WHEN "embeddingStatus" = 'done' AND "archivedAt" IS NULL AND "embeddingDims" = $2 AND "embeddingModel" = $3
         THEN encode("embedding", 'hex') END AS "embedding"
     FROM "Memory" WHERE "id" = ANY($1::int[])`,
    [ids, index.dims, model],
  );
  const vector = new Float32Array(index.dims);
  const kept = new Set<number>();
  for (const row of rows) {
    if (row.embedding && vectorFromHex(row.embedding, vector)) {
      index.add(row.id, vector, row);
      kept.add(row.id);
    }
  }
  for (const id of ids) if (!kept.has(id)) index.remove(id);
}

/** The best `limit` of `estimates` by exact cosine with `query`, from their stored vectors (rescoreExactly). */
export async function rescoreExactlyPg(
  sql: Sql,
  index: VectorIndex,
  query: Float32Array,
  estimates: VectorHit[],
  limit: number,
): Promise<VectorHit[]> {
  const ids = estimates.map((hit) => hit.id);
  return bestOf(await exactCosinesPg(sql, index, query, ids), ids, limit);
}

/** The exact cosines with `query` of the stored vectors of `ids`, read in one query (exactCosines in search-index.ts). */
export async function exactCosinesPg(sql: Sql, index: VectorIndex, query: Float32Array, ids: number[]): Promise<Map<number, number>> {
  if (ids.length === 0) return new Map();
  const rows = await sql.all<{ id: number; embedding: string | null }>(
    `SELECT "id", encode("embedding", 'hex') AS "embedding" FROM "Memory" WHERE "id" = ANY($1::int[]) AND "embeddingDims" = $2`,
    [ids, index.dims],
  );
  return cosinesOf(index, query, rows);
}

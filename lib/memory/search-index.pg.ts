// The PostgreSQL twin of search-index.ts: the same in-process vector index
// (vector-index.ts), loaded in pages from "Memory", re-scored from the stored
// floats, and, what differs, kept in step with the table on every app instance.
//
// Several instances write to one database, so an instance's own write paths
// (afterStore, the embedder, dropFromIndexes) no longer see every change. A
// trigger logs the id of each inserted, re-embedded, archived, updated or deleted
// memory in "MemoryChange" (prisma/postgresql/migrations/20261126110201_memory_changes),
// and `catchUpIndexPg` (before every search, before hygiene's duplicate check,
// and every few seconds from jobs.ts) reads the changes after the last one this
// instance saw and re-reads each changed memory's current row: embedded and live,
// its vector is (re)added; otherwise it leaves the index. When nothing changed
// that is one indexed range read of the change log's primary key.
//
// A change's "seq" is taken when the row changes, not when its transaction
// commits, so seq 11 can be visible while seq 10 is still uncommitted. Numbers
// skipped over are remembered as gaps and asked for again on each catch-up
// (`seq = ANY(gaps)`) until they show up or GAP_WINDOW_MS passes (a rolled-back
// write leaves a gap that never fills). Memory writes are short transactions, far
// shorter than that window.
import "server-only";
import { pgSql, type Sql } from "@/lib/pg";
import { activeEmbedder } from "./embedders";
import { bestByCosine, indexEstimates, indexState, startIndexLoad } from "./search-index";
import { type VectorFilter, type VectorHit, type VectorIndex, vectorFromHex } from "./vector-index";

const PAGE = 2000;
/** Changes read per round of a catch-up. */
const CHANGES_PAGE = 5000;
/** How long a skipped change number is asked for again. */
const GAP_WINDOW_MS = 5 * 60_000;
/** Gaps tracked at most (a huge rolled-back batch is not worth asking for one by one). */
const MAX_GAPS = 2000;
/** Changes re-read after a (re)load, for writes that committed while it ran. */
const RELOAD_OVERLAP = 1000;
/** The leader prunes the change log after a day (hygiene.pg.ts); an instance that slept half of that reloads. */
export const CHANGE_LOG_DAYS = 1;
const STALE_MS = (CHANGE_LOG_DAYS * 86_400_000) / 2;

type Sync = {
  index: VectorIndex | null;
  lastSeq: number;
  gaps: Map<number, number>;
  lastRun: number;
  running: Promise<void> | null;
  queued: Promise<void> | null;
};
const globalSync = globalThis as unknown as { swarmdeckMemoryIndexSync?: Sync };

function sync(): Sync {
  globalSync.swarmdeckMemoryIndexSync ??= { index: null, lastSeq: 0, gaps: new Map(), lastRun: 0, running: null, queued: null };
  return globalSync.swarmdeckMemoryIndexSync;
}

/** Starts loading the index (idempotent); resolves when it is complete and caught up. */
export function ensureIndexPg(): Promise<void> {
  return startIndexLoad(async (index, model) => {
    const sql = pgSql();
    // Where the change log stands before the load: the changes after it (and a
    // few before it, for writes that committed while the load ran) are replayed.
    const top = await sql.get<{ seq: number | null }>('SELECT max("seq") AS "seq" FROM "MemoryChange"');
    const state = sync();
    state.index = index;
    state.lastSeq = Math.max(0, (top?.seq ?? 0) - RELOAD_OVERLAP);
    state.gaps.clear();
    state.lastRun = Date.now();
    let after = 0;
    const vector = new Float32Array(index.dims);
    for (;;) {
      const rows = await sql.all<{ id: number; agentId: string | null; scope: string; embedding: string | null }>(
        `SELECT "id", "agentId", "scope", encode("embedding", 'hex') AS "embedding" FROM "Memory"
         WHERE "id" > $1 AND "embeddingStatus" = 'done' AND "archivedAt" IS NULL AND "embeddingDims" = $2 AND "embeddingModel" = $3
         ORDER BY "id" LIMIT ${PAGE}`,
        [after, index.dims, model],
      );
      for (const row of rows) {
        if (row.embedding && vectorFromHex(row.embedding, vector)) index.add(row.id, vector, row);
        after = row.id;
      }
      if (rows.length < PAGE) break;
    }
    await applyChanges(sql, index, model);
  });
}

/**
 * Brings this instance's index up to date with every committed change to
 * "Memory", whoever made it. Calls made while one runs wait for the next run, so
 * a search always sees the writes committed before it asked.
 */
export function catchUpIndexPg(): Promise<void> {
  const state = sync();
  if (!state.running) {
    state.running = runCatchUp().finally(() => {
      state.running = null;
    });
    return state.running;
  }
  state.queued ??= state.running.then(() => {
    state.queued = null;
    return catchUpIndexPg();
  });
  return state.queued;
}

async function runCatchUp(): Promise<void> {
  const s = indexState();
  const embedder = activeEmbedder();
  if (!embedder || !s.ready || !s.index) return;
  const state = sync();
  if (state.index !== s.index) return;
  if (Date.now() - state.lastRun > STALE_MS) {
    // The change log may have been pruned past what this instance saw: load again.
    s.loading = null;
    s.ready = false;
    void ensureIndexPg();
    return;
  }
  await applyChanges(pgSql(), s.index, embedder.model);
}

type Change = { seq: number; id: number; agentId: string | null; scope: string | null; embedding: string | null };

async function applyChanges(sql: Sql, index: VectorIndex, model: string): Promise<void> {
  const state = sync();
  const vector = new Float32Array(index.dims);
  for (;;) {
    const now = Date.now();
    for (const [seq, since] of state.gaps) if (now - since > GAP_WINDOW_MS) state.gaps.delete(seq);
    const gaps = [...state.gaps.keys()];
    const params: unknown[] = [state.lastSeq, index.dims, model];
    if (gaps.length > 0) params.push(gaps);
    // The changed memories' current rows; the embedding only for those the index keeps. The
    // new changes and the gaps are two primary-key reads (an OR of both would scan the index).
    const changes = await sql.all<Change>(
      `WITH c AS (
         (SELECT "seq", "memoryId" FROM "MemoryChange" WHERE "seq" > $1 ORDER BY "seq" LIMIT ${CHANGES_PAGE})
         ${gaps.length > 0 ? 'UNION ALL (SELECT "seq", "memoryId" FROM "MemoryChange" WHERE "seq" = ANY($4::bigint[]))' : ""}
       )
       SELECT c."seq", c."memoryId" AS "id", m."agentId", m."scope",
         CASE WHEN m."embeddingStatus" = 'done' AND m."archivedAt" IS NULL AND m."embeddingDims" = $2 AND m."embeddingModel" = $3
           THEN encode(m."embedding", 'hex') END AS "embedding"
       FROM c LEFT JOIN "Memory" m ON m."id" = c."memoryId"
       ORDER BY c."seq"`,
      params,
    );
    state.lastRun = now;
    let newest = 0;
    for (const change of changes) {
      if (change.seq <= state.lastSeq) state.gaps.delete(change.seq);
      else {
        for (let missing = state.lastSeq + 1; missing < change.seq && state.gaps.size < MAX_GAPS; missing++) state.gaps.set(missing, now);
        state.lastSeq = change.seq;
        newest++;
      }
      if (change.embedding && change.scope !== null && vectorFromHex(change.embedding, vector)) {
        index.add(change.id, vector, { agentId: change.agentId, scope: change.scope });
      } else index.remove(change.id);
    }
    if (newest < CHANGES_PAGE) return;
  }
}

/** The `limit` nearest visible memories by exact cosine (nearestMemories in search-index.ts). */
export async function nearestMemoriesPg(
  sql: Sql,
  index: VectorIndex,
  query: Float32Array,
  options: { limit: number; rescore: number; candidates?: number; filter: VectorFilter },
): Promise<VectorHit[]> {
  const estimates = indexEstimates(index, query, options);
  return rescoreExactlyPg(sql, index, query, estimates, options.limit);
}

/** The best `limit` of `estimates` by exact cosine with `query`, from their stored vectors (rescoreExactly). */
export async function rescoreExactlyPg(
  sql: Sql,
  index: VectorIndex,
  query: Float32Array,
  estimates: VectorHit[],
  limit: number,
): Promise<VectorHit[]> {
  if (estimates.length === 0) return [];
  const rows = await sql.all<{ id: number; embedding: string | null }>(
    `SELECT "id", encode("embedding", 'hex') AS "embedding" FROM "Memory" WHERE "id" = ANY($1::int[]) AND "embeddingDims" = $2`,
    [estimates.map((hit) => hit.id), index.dims],
  );
  return bestByCosine(index, query, rows, limit);
}

// The process's one vector index over the stored embeddings. Built once, lazily
// and in pages (the connection lock is released between pages so requests keep
// flowing), then kept current by the embedder and by deletes. Until it is ready
// searches answer from keywords and record why ("index_loading").
import "server-only";
import type Database from "better-sqlite3";
import { prepare, usesPostgres, withSqlite } from "@/lib/db";
import { activeEmbedder } from "./embedders";
import { keywordIndex } from "./keyword-search";
import { cosineWithUnit, normalize, type VectorFilter, type VectorHit, VectorIndex, vectorFromBytes, vectorFromHex } from "./vector-index";

type State = {
  index: VectorIndex | null;
  loading: Promise<void> | null;
  ready: boolean;
  dims: number;
  /** How many vectors an index loaded without a center holds when it is loaded again to get one (needsCenter). */
  centerAt: number;
};
const globalState = globalThis as unknown as { swarmdeckMemoryIndex?: State };

function state(): State {
  globalState.swarmdeckMemoryIndex ??= { index: null, loading: null, ready: false, dims: 0, centerAt: 0 };
  return globalState.swarmdeckMemoryIndex;
}

/** The index's state, for its PostgreSQL twin (search-index.pg.ts), which loads it and keeps it in step. */
export const indexState = state;

const PAGE = 2000;

/** The index when it exists (possibly still loading; adds are safe either way). */
export function memoryIndex(): VectorIndex | null {
  return state().index;
}

/**
 * Memories deleted, or archived (kept in the table, out of every search), leave
 * both in-memory indexes (vector and keyword).
 */
export function dropFromIndexes(ids: number[], how: "deleted" | "archived"): void {
  const vectors = state().index;
  const keywords = keywordIndex();
  for (const id of ids) {
    vectors?.remove(id);
    if (how === "deleted") keywords?.remove(id);
    else keywords?.hide(id);
  }
}

export function indexReady(): boolean {
  return state().ready;
}

/** Starts loading the index (idempotent); resolves when it is complete. */
export function ensureIndex(): Promise<void> {
  if (usesPostgres()) return import("./search-index.pg").then((pg) => pg.ensureIndexPg());
  return startIndexLoad({
    // The first page is the sample the center is taken from.
    sample: (dims, model) => withSqlite((sqlite) => storedPage(sqlite, 0, dims, model)),
    load: (index, model) => loadPages(index, model),
  });
}

type StoredRow = { id: number; agentId: string | null; scope: string; embedding: string | null };

/** Up to PAGE embedded, live memories of the model after id `after`, in id order, vectors as hex. */
function storedPage(sqlite: Database.Database, after: number, dims: number, model: string): StoredRow[] {
  return prepare(
    sqlite,
    `SELECT id, agentId, scope, hex(embedding) AS embedding FROM Memory
     WHERE id > ? AND embeddingStatus = 'done' AND archivedAt IS NULL AND embeddingDims = ? AND embeddingModel = ?
     ORDER BY id LIMIT ${PAGE}`,
  ).all(after, dims, model) as StoredRow[];
}

/** Every embedded memory into `index`, in pages of PAGE rows, the lock released between pages. */
async function loadPages(index: VectorIndex, model: string): Promise<void> {
  let after = 0;
  const vector = new Float32Array(index.dims);
  for (;;) {
    const count = await withSqlite((sqlite) => {
      const rows = storedPage(sqlite, after, index.dims, model);
      addStoredRows(index, rows, vector);
      after = rows.at(-1)?.id ?? after;
      return rows.length;
    });
    if (count < PAGE) break;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** With fewer memories in the sample (the stores' first page, the oldest), no center. */
const CENTER_MIN = 200;

/** Adds a page of stored rows (vectors as hex, see vectorFromHex) to `index`, for both stores' loaders. */
export function addStoredRows(
  index: VectorIndex,
  rows: { id: number; agentId: string | null; scope: string; embedding: string | null }[],
  scratch: Float32Array,
): void {
  for (const row of rows) if (row.embedding && vectorFromHex(row.embedding, scratch)) index.add(row.id, scratch, row);
}

/** The mean of the rows' unit vectors (vectors as hex), or null for fewer than CENTER_MIN of them. */
function centerOf(rows: { embedding: string | null }[], dims: number): Float32Array | null {
  const scratch = new Float32Array(dims);
  const sum = new Float64Array(dims);
  let count = 0;
  for (const row of rows) {
    if (!row.embedding || !vectorFromHex(row.embedding, scratch) || !normalize(scratch)) continue;
    for (let i = 0; i < dims; i++) sum[i]! += scratch[i]!;
    count++;
  }
  return count >= CENTER_MIN ? Float32Array.from(sum, (x) => x / count) : null;
}

/**
 * Whether the index, loaded without a center (fewer than CENTER_MIN memories then:
 * a new install starts with none), has grown enough to be loaded again with one:
 * to CENTER_MIN and to twice what it held when loaded, so a store whose sample
 * stays too small is not reloaded over and over.
 */
function needsCenter(s: State): boolean {
  return s.ready && s.index !== null && !s.index.centered && s.index.size >= s.centerAt;
}

/**
 * Starts loading a new index for the active embedder (idempotent: the load under
 * way; nothing without an embedder). First the store's `sample`, its first page of
 * the oldest embedded memories, gives the index its center
 * (VectorIndex.setCenter), before the index is published: from then on the
 * embedder adds to it, and a center comes before any add. Then the store's `load`
 * pages every embedded memory in; what is embedded in between is committed by
 * then, so the pages hold it. The index is ready when `load` resolves; a failed
 * load (the kernel missing included) leaves no index, and searches answer by
 * keyword. An index loaded without a center is loaded again once it has grown
 * (needsCenter; every search asks for the index, so the next one starts that),
 * while it goes on serving: the changes made meanwhile reach the new one through
 * it (VectorIndex.mirror), and the new one takes its place once loaded. Both stores.
 */
export function startIndexLoad(store: {
  sample: (dims: number, model: string) => Promise<{ embedding: string | null }[]>;
  load: (index: VectorIndex, model: string) => Promise<void>;
}): Promise<void> {
  const s = state();
  const embedder = activeEmbedder();
  if (!embedder) return Promise.resolve();
  // Loaded again, now with a center: the index in use serves until the new one takes over.
  const serving = needsCenter(s) ? s.index : null;
  if (serving) {
    s.loading = null;
    s.centerAt = Number.POSITIVE_INFINITY; // one such load at a time
  }
  if (s.loading) return s.loading;
  s.dims = embedder.dimensions;
  s.loading = (async () => {
    const index = new VectorIndex(embedder.dimensions);
    const center = centerOf(await store.sample(embedder.dimensions, embedder.model), embedder.dimensions);
    if (center) index.setCenter(center);
    // The embedder's adds and the removes reach it from now on: directly, or through the index it replaces.
    if (serving) serving.mirror = index;
    else s.index = index;
    try {
      await store.load(index, embedder.model);
    } finally {
      if (serving) serving.mirror = null;
    }
    s.index = index;
    s.centerAt = Math.max(CENTER_MIN, 2 * index.size);
    s.ready = true;
  })().catch((error) => {
    console.error("[swarmdeck] memory index load failed", error);
    if (serving) {
      // The index in use stays (and this settled load with it), not loaded again before it has doubled.
      s.centerAt = 2 * serving.size;
      return;
    }
    s.loading = null;
    s.index = null;
    s.ready = false;
  });
  return s.loading;
}

/** The index's best `rescore` estimates for `query` (vector-index.ts: two bits a dimension, coarse), to re-score (both stores). */
export function indexEstimates(
  index: VectorIndex,
  query: Float32Array,
  options: { limit: number; rescore: number; candidates?: number; filter: VectorFilter },
): VectorHit[] {
  return index.search(query, {
    limit: Math.max(options.limit, options.rescore),
    candidates: options.candidates,
    filter: options.filter,
  });
}

/**
 * The exact cosine with `query` of each stored vector in `rows` of the index's
 * dimensions (both stores): as bytes (a blob, see vectorFromBytes) or as hex (see
 * vectorFromHex). Rows of another length are left out.
 */
export function cosinesOf(
  index: VectorIndex,
  query: Float32Array,
  rows: { id: number; embedding: Uint8Array | string | null }[],
): Map<number, number> {
  const cosines = new Map<number, number>();
  if (query.length !== index.dims) return cosines;
  const unit = Float32Array.from(query);
  const usable = normalize(unit); // a zero query is at cosine 0 with everything
  const scratch = new Float32Array(index.dims);
  for (const { id, embedding } of rows) {
    if (embedding === null) continue;
    const vector = typeof embedding === "string" ? vectorFromHex(embedding, scratch) : vectorFromBytes(embedding, scratch);
    if (vector) cosines.set(id, usable ? cosineWithUnit(unit, vector) : 0);
  }
  return cosines;
}

/** The best `limit` of `ids` by their cosine in `cosines` (ids without one are left out), ties by id (both stores). */
export function bestOf(cosines: Map<number, number>, ids: number[], limit: number): VectorHit[] {
  const hits: VectorHit[] = [];
  for (const id of ids) {
    const value = cosines.get(id);
    if (value !== undefined) hits.push({ id, cosine: value });
  }
  return hits.sort((a, b) => b.cosine - a.cosine || a.id - b.id).slice(0, limit);
}

/**
 * The best `limit` of `estimates` by exact cosine with `query`, from their stored
 * vectors, for hygiene's walk over every memory: read as hex, as its millions of
 * reads would leave native buffers behind (see exactCosines).
 */
export function rescoreExactly(
  sqlite: Database.Database,
  index: VectorIndex,
  query: Float32Array,
  estimates: VectorHit[],
  limit: number,
): VectorHit[] {
  const ids = estimates.map((hit) => hit.id);
  return bestOf(exactCosines(sqlite, index, query, ids, "hex"), ids, limit);
}

/**
 * The exact cosines with `query` of the stored vectors of `ids`, read in one query
 * (those of another dimension are left out). A search reads the blobs as they are:
 * a few hundred, cheaper than hex text to read and decode, and too few for their
 * native buffers to matter; a walk over every memory reads hex (see vectorFromHex).
 */
export function exactCosines(
  sqlite: Database.Database,
  index: VectorIndex,
  query: Float32Array,
  ids: number[],
  read: "blob" | "hex" = "blob",
): Map<number, number> {
  if (ids.length === 0) return new Map();
  const column = read === "hex" ? "hex(embedding)" : "embedding";
  const rows = prepare(
    sqlite,
    `SELECT id, ${column} AS embedding FROM Memory WHERE id IN (SELECT value FROM json_each(?)) AND embeddingDims = ?`,
  ).all(JSON.stringify(ids), index.dims) as { id: number; embedding: Uint8Array | string | null }[];
  return cosinesOf(index, query, rows);
}

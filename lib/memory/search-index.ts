// The process's one vector index over the stored embeddings. Built once, lazily
// and in pages (the connection lock is released between pages so requests keep
// flowing), then kept current by the embedder and by deletes. Until it is ready
// searches answer from keywords and record why ("index_loading").
import "server-only";
import { prepare, withSqlite } from "@/lib/db";
import { activeEmbedder } from "./embedders";
import { keywordIndex } from "./keyword-search";
import { VectorIndex, vectorFromHex } from "./vector-index";

type State = { index: VectorIndex | null; loading: Promise<void> | null; ready: boolean; dims: number };
const globalState = globalThis as unknown as { swarmdeckMemoryIndex?: State };

function state(): State {
  globalState.swarmdeckMemoryIndex ??= { index: null, loading: null, ready: false, dims: 0 };
  return globalState.swarmdeckMemoryIndex;
}

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
  const s = state();
  const embedder = activeEmbedder();
  if (!embedder) return Promise.resolve();
  if (s.loading) return s.loading;
  s.index = new VectorIndex(embedder.dimensions);
  s.dims = embedder.dimensions;
  const index = s.index;
  s.loading = (async () => {
    let after = 0;
    const vector = new Float32Array(index.dims);
    for (;;) {
      const count = await withSqlite((sqlite) => {
        const rows = prepare(
          sqlite,
          `SELECT id, agentId, scope, hex(embedding) AS embedding FROM Memory
           WHERE id > ? AND embeddingStatus = 'done' AND archivedAt IS NULL AND embeddingDims = ? AND embeddingModel = ?
           ORDER BY id LIMIT ${PAGE}`,
        ).all(after, index.dims, embedder.model) as { id: number; agentId: string | null; scope: string; embedding: string | null }[];
        for (const row of rows) {
          if (row.embedding && vectorFromHex(row.embedding, vector)) index.add(row.id, vector, row);
          after = row.id;
        }
        return rows.length;
      });
      if (count < PAGE) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    s.ready = true;
  })().catch((error) => {
    console.error("[swarmdeck] memory index load failed", error);
    s.loading = null;
    s.index = null;
  });
  return s.loading;
}

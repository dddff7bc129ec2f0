// Computes embeddings off the request path: new memories are stored as
// "pending" and this loop embeds them in batches. A failed batch is recorded on
// each row (embeddingError, embeddingAttempts) and retried with exponential
// backoff up to MAX_ATTEMPTS; each row's status says where it stands.
import "server-only";
import { prepare, usesPostgres, withSqlite, writeTransaction } from "@/lib/db";
import { activeEmbedder, type Embedder } from "./embedders";
import { memoryIndex } from "./search-index";
import { toBytes } from "./vector-index";

export const MAX_ATTEMPTS = 5;
export const BASE_BACKOFF_MS = Number(process.env.SWARMDECK_EMBED_BACKOFF_MS ?? 2000) || 2000;

export type Row = { id: number; name: string; content: string; agentId: string | null; scope: string; embeddingAttempts: number };

const globalState = globalThis as unknown as {
  swarmdeckEmbedder?: { running: boolean; again: boolean; requeuedFor: string | null };
};
function state() {
  globalState.swarmdeckEmbedder ??= { running: false, again: false, requeuedFor: null };
  return globalState.swarmdeckEmbedder;
}

/** The loop's state, for the PostgreSQL twin (embedder.pg.ts). */
export const embedderState = state;

/**
 * Once per process and embedder: memories stored with no embedder ('none') or
 * embedded by another one (a provider configured or removed since) are queued
 * again, so every vector in the index comes from the embedder that answers. In
 * transactions of REQUEUE_IDS ids each: a transaction holds the old content of every
 * page it changes in memory (lib/db.ts, temp_store), and at 1M memories one
 * transaction would hold the whole table.
 */
async function requeueForeign(embedder: Embedder): Promise<void> {
  const s = state();
  if (s.requeuedFor === embedder.model) return;
  s.requeuedFor = embedder.model;
  const { last } = (await withSqlite((sqlite) => prepare(sqlite, "SELECT COALESCE(MAX(id), 0) AS last FROM Memory").get())) as {
    last: number;
  };
  for (let after = 0; after < last; after += REQUEUE_IDS) {
    await writeTransaction((sqlite) => {
      prepare(
        sqlite,
        `UPDATE Memory SET embeddingStatus = 'pending', embeddingAttempts = 0
         WHERE id > ? AND id <= ? AND archivedAt IS NULL
           AND (embeddingStatus = 'none' OR (embeddingStatus IN ('done', 'failed') AND embeddingModel IS NOT ?))`,
      ).run(after, after + REQUEUE_IDS, embedder.model);
    });
  }
}

const REQUEUE_IDS = 5_000;

async function nextBatch(batch: number): Promise<Row[]> {
  const now = Date.now();
  return withSqlite((sqlite) => {
    const pending = prepare(
      sqlite,
      `SELECT id, name, content, agentId, scope, embeddingAttempts FROM Memory
       WHERE embeddingStatus = 'pending' ORDER BY id LIMIT ${batch}`,
    ).all() as Row[];
    if (pending.length > 0) return pending;
    const failed = prepare(
      sqlite,
      `SELECT id, name, content, agentId, scope, embeddingAttempts, updatedAt FROM Memory
       WHERE embeddingStatus = 'failed' AND embeddingAttempts < ${MAX_ATTEMPTS} ORDER BY id LIMIT 500`,
    ).all() as (Row & { updatedAt: number })[];
    return failed.filter((row) => row.updatedAt + BASE_BACKOFF_MS * 2 ** (row.embeddingAttempts - 1) <= now).slice(0, batch);
  });
}

/** Embeds one batch; returns how many rows it handled (0: nothing to do). */
export async function embedBatch(): Promise<number> {
  if (usesPostgres()) return (await import("./embedder.pg")).embedBatchPg();
  const embedder = activeEmbedder();
  if (!embedder) return 0;
  await requeueForeign(embedder);
  const rows = await nextBatch(embedder.batch);
  if (rows.length === 0) return 0;
  try {
    // The SDK retries connection errors and 5xx twice within a batch; the row-level retry covers longer outages.
    const vectors = await embedder.embed(
      rows.map((row) => `${row.name}\n\n${row.content}`),
      { retries: 2 },
    );
    const now = Date.now();
    await writeTransaction((sqlite) => {
      const update = prepare(
        sqlite,
        `UPDATE Memory SET embedding = ?, embeddingModel = ?, embeddingDims = ?, embeddingStatus = 'done',
           embeddingError = NULL, embeddingAttempts = embeddingAttempts + 1, updatedAt = ? WHERE id = ?`,
      );
      rows.forEach((row, i) => {
        update.run(toBytes(vectors[i]!), embedder.model, embedder.dimensions, now, row.id);
      });
    });
    const index = memoryIndex();
    if (index) {
      rows.forEach((row, i) => {
        index.add(row.id, vectors[i]!, row);
      });
    }
  } catch (error) {
    const message = (error instanceof Error ? error.message : String(error)).slice(0, 500);
    const now = Date.now();
    await writeTransaction((sqlite) => {
      const update = prepare(
        sqlite,
        `UPDATE Memory SET embeddingStatus = 'failed', embeddingError = ?, embeddingAttempts = embeddingAttempts + 1, updatedAt = ?
         WHERE id = ?`,
      );
      for (const row of rows) update.run(message, now, row.id);
    });
    console.warn(`[swarmdeck] embedding ${rows.length} memories failed: ${message}`);
    return -rows.length;
  }
  return rows.length;
}

/**
 * How long the loop lets new memories gather after a batch that was not full. Agents
 * write one memory per request; without the pause, each batch would carry the few
 * written during the last provider call, and the call, the transaction and the
 * queue's reads would be paid every few memories. A lone write is not delayed: the
 * first batch starts at once.
 */
const GATHER_MS = 20;

/** Runs the embedder until nothing is pending (idempotent; safe to call on every write). */
export function kickEmbedder(): void {
  const s = state();
  if (s.running) {
    s.again = true;
    return;
  }
  s.running = true;
  void (async () => {
    try {
      do {
        s.again = false;
        for (;;) {
          const handled = await embedBatch();
          if (handled <= 0) break;
          const full = handled >= (activeEmbedder()?.batch ?? 0);
          await new Promise((resolve) => (full ? setImmediate(resolve) : setTimeout(resolve, GATHER_MS)));
        }
      } while (s.again);
    } catch (error) {
      console.error("[swarmdeck] embedder stopped", error);
    } finally {
      s.running = false;
    }
  })();
}

// The PostgreSQL twin of embedder.ts's embedBatch: the same batches, statuses,
// recorded failures and backoff. What differs: every app instance runs the loop
// for its own writes (and the leader retries failures), so a batch is claimed
// with FOR UPDATE SKIP LOCKED inside one transaction that holds those rows until
// their vectors are written: two instances never embed the same row at once.
// Other instances' vector indexes pick the new vectors up from the change log
// (search-index.pg.ts).
import "server-only";
import { pgTransaction, type Sql } from "@/lib/pg";
import { BASE_BACKOFF_MS, embedderState, MAX_ATTEMPTS, type Row } from "./embedder";
import { activeEmbedder, type Embedder } from "./embedders";
import { memoryIndex } from "./search-index";
import { toBytes } from "./vector-index";

async function requeueForeignPg(sql: Sql, embedder: Embedder): Promise<void> {
  const s = embedderState();
  if (s.requeuedFor === embedder.model) return;
  await sql.run(
    `UPDATE "Memory" SET "embeddingStatus" = 'pending', "embeddingAttempts" = 0
     WHERE "archivedAt" IS NULL AND ("embeddingStatus" = 'none' OR ("embeddingStatus" IN ('done', 'failed') AND "embeddingModel" IS DISTINCT FROM $1))`,
    [embedder.model],
  );
  s.requeuedFor = embedder.model;
}

async function claimBatch(sql: Sql, batch: number): Promise<Row[]> {
  const pending = await sql.all<Row>(
    `SELECT "id", "name", "content", "agentId", "scope", "embeddingAttempts" FROM "Memory"
     WHERE "embeddingStatus" = 'pending' ORDER BY "id" LIMIT ${batch} FOR UPDATE SKIP LOCKED`,
  );
  if (pending.length > 0) return pending;
  return sql.all<Row>(
    `SELECT "id", "name", "content", "agentId", "scope", "embeddingAttempts" FROM "Memory"
     WHERE "embeddingStatus" = 'failed' AND "embeddingAttempts" < ${MAX_ATTEMPTS}
       AND "updatedAt" + make_interval(secs => $1 * power(2, GREATEST("embeddingAttempts" - 1, 0)) / 1000.0) <= $2
     ORDER BY "id" LIMIT ${batch} FOR UPDATE SKIP LOCKED`,
    [BASE_BACKOFF_MS, new Date()],
  );
}

/** Embeds one batch; returns how many rows it handled (0: nothing to do; negative: that many failed). */
export async function embedBatchPg(): Promise<number> {
  const embedder = activeEmbedder();
  if (!embedder) return 0;
  await pgTransaction((sql) => requeueForeignPg(sql, embedder));
  let failure: string | null = null;
  const done = await pgTransaction(async (sql) => {
    failure = null;
    const rows = await claimBatch(sql, embedder.batch);
    if (rows.length === 0) return null;
    const now = new Date();
    try {
      // The SDK retries connection errors and 5xx twice within a batch; the row-level retry covers longer outages.
      const vectors = await embedder.embed(
        rows.map((row) => `${row.name}\n\n${row.content}`),
        { retries: 2 },
      );
      for (const [i, row] of rows.entries()) {
        await sql.run(
          `UPDATE "Memory" SET "embedding" = $1, "embeddingModel" = $2, "embeddingDims" = $3, "embeddingStatus" = 'done',
             "embeddingError" = NULL, "embeddingAttempts" = "embeddingAttempts" + 1, "updatedAt" = $4 WHERE "id" = $5`,
          [toBytes(vectors[i]!), embedder.model, embedder.dimensions, now, row.id],
        );
      }
      return { rows, vectors };
    } catch (error) {
      failure = (error instanceof Error ? error.message : String(error)).slice(0, 500);
      await sql.run(
        `UPDATE "Memory" SET "embeddingStatus" = 'failed', "embeddingError" = $1, "embeddingAttempts" = "embeddingAttempts" + 1,
           "updatedAt" = $2 WHERE "id" = ANY($3::int[])`,
        [failure, now, rows.map((row) => row.id)],
      );
      return { rows, vectors: null };
    }
  });
  if (!done) return 0;
  if (!done.vectors) {
    console.warn(`[swarmdeck] embedding ${done.rows.length} memories failed: ${failure}`);
    return -done.rows.length;
  }
  const index = memoryIndex();
  if (index) {
    for (const [i, row] of done.rows.entries()) index.add(row.id, done.vectors[i]!, row);
  }
  return done.rows.length;
}

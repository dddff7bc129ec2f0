// The PostgreSQL twin of embedder.ts's embedBatch: the same batches, statuses,
// recorded failures and backoff. What differs: every app instance runs the loop
// for its own writes (and the leader retries failures), so a batch is claimed
// first (FOR UPDATE SKIP LOCKED, marked, its updatedAt moved to now as a lease), then
// embedded with no transaction open: two instances do not embed the same row at
// once, and no search waits on a row lock while the provider answers.
// Other instances' vector indexes pick the new vectors up from the change log
// (search-index.pg.ts).
import "server-only";
import { pgSql, pgTransaction, type Sql } from "@/lib/pg";
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

/** How long a claimed batch is left to the instance that claimed it before another may take it over (a crash). */
const LEASE_MS = 60_000;
/** A pending row's embeddingError while an instance embeds it (cleared or replaced by the outcome). */
const IN_PROGRESS = "embedding in progress";

/**
 * Claims a batch in one short statement, so no row lock is held while the
 * provider answers: pending rows nobody is embedding (or whose claim is older
 * than the lease: that instance died), else failed rows past their backoff. A
 * claim marks the row (embeddingError IN_PROGRESS for a pending row) and moves
 * updatedAt to now (the lease; for a failed row also its next backoff).
 */
async function claimBatch(sql: Sql, batch: number): Promise<Row[]> {
  const now = new Date();
  const claim = (set: string, where: string, params: unknown[]) =>
    sql.all<Row>(
      `UPDATE "Memory" SET "updatedAt" = $1${set} WHERE "id" IN (
         SELECT "id" FROM "Memory" WHERE ${where} ORDER BY "id" LIMIT ${batch} FOR UPDATE SKIP LOCKED)
       RETURNING "id", "name", "content", "agentId", "scope", "embeddingAttempts"`,
      [now, ...params],
    );
  let rows = await claim(
    `, "embeddingError" = '${IN_PROGRESS}'`,
    `"embeddingStatus" = 'pending' AND ("embeddingError" IS DISTINCT FROM '${IN_PROGRESS}' OR "updatedAt" < $2)`,
    [new Date(now.getTime() - LEASE_MS)],
  );
  if (rows.length === 0) {
    rows = await claim(
      "",
      `"embeddingStatus" = 'failed' AND "embeddingAttempts" < ${MAX_ATTEMPTS}
       AND "updatedAt" + make_interval(secs => $2 * power(2, GREATEST("embeddingAttempts" - 1, 0)) / 1000.0) <= $1`,
      [BASE_BACKOFF_MS],
    );
  }
  return rows.sort((a, b) => a.id - b.id);
}

/** Embeds one batch; returns how many rows it handled (0: nothing to do; negative: that many failed). */
export async function embedBatchPg(): Promise<number> {
  const embedder = activeEmbedder();
  if (!embedder) return 0;
  const sql = pgSql();
  await requeueForeignPg(sql, embedder);
  const rows = await claimBatch(sql, embedder.batch);
  if (rows.length === 0) return 0;
  let vectors: Float32Array[];
  try {
    // The SDK retries connection errors and 5xx twice within a batch; the row-level retry covers longer outages.
    vectors = await embedder.embed(
      rows.map((row) => `${row.name}\n\n${row.content}`),
      { retries: 2 },
    );
  } catch (error) {
    const message = (error instanceof Error ? error.message : String(error)).slice(0, 500);
    await sql.run(
      `UPDATE "Memory" SET "embeddingStatus" = 'failed', "embeddingError" = $1, "embeddingAttempts" = "embeddingAttempts" + 1,
         "updatedAt" = $2 WHERE "id" = ANY($3::int[])`,
      [message, new Date(), rows.map((row) => row.id)],
    );
    console.warn(`[swarmdeck] embedding ${rows.length} memories failed: ${message}`);
    return -rows.length;
  }
  const now = new Date();
  await pgTransaction(async (tx) => {
    for (const [i, row] of rows.entries()) {
      await tx.run(
        `UPDATE "Memory" SET "embedding" = $1, "embeddingModel" = $2, "embeddingDims" = $3, "embeddingStatus" = 'done',
           "embeddingError" = NULL, "embeddingAttempts" = "embeddingAttempts" + 1, "updatedAt" = $4 WHERE "id" = $5`,
        [toBytes(vectors[i]!), embedder.model, embedder.dimensions, now, row.id],
      );
    }
  });
  const index = memoryIndex();
  if (index) {
    for (const [i, row] of rows.entries()) index.add(row.id, vectors[i]!, row);
  }
  return rows.length;
}

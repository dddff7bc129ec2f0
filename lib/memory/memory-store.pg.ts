// The PostgreSQL twin of memory-store.ts: the same chunks, content-hash dedup,
// expiry, file re-index and audit event, written inside the caller's
// `pgTransaction`. What differs: several app instances may store the same text
// (or re-index the same file) at once, where SQLite's one write lock made the
// duplicate check and the insert one step. Each (scope, agent) the call writes
// to is locked first (a transaction-level advisory lock, taken in sorted order),
// so two stores of one agent's memories line up and the second sees the first's
// rows. The audit append comes last, holding the audit chain's lock briefly.
import "server-only";
import { type Actor, SYSTEM_ACTOR } from "@/lib/audit/audit-log";
import { appendAuditPg } from "@/lib/audit/audit-log.pg";
import { pgTransaction, type Sql } from "@/lib/pg";
import {
  afterStore,
  contentHash,
  type EmbeddedMemory,
  type EmbedPlan,
  embedPlan,
  type InsertedMemory,
  memoryDeletedAudit,
  memoryLayout,
  type NewMemory,
  newChunk,
  type StoredMemories,
  storeOutcome,
} from "./memory-store";
import { dropFromIndexes } from "./search-index";
import { toBytes } from "./vector-index";

/** Serializes writers of one (scope, agent) across the cluster until the transaction ends. */
async function lockOwners(sql: Sql, items: NewMemory[]): Promise<void> {
  const keys = [...new Set(items.map((item) => `swarmdeck:memory:${item.scope}:${item.agentId ?? ""}`))].sort();
  for (const key of keys) await sql.get("SELECT pg_advisory_xact_lock(hashtext($1))", [key]);
}

async function insertOne(
  sql: Sql,
  item: NewMemory,
  now: number,
  createdById: string | null,
  plan: EmbedPlan,
  embedded: EmbeddedMemory[],
): Promise<InsertedMemory> {
  const { chunks, expiresAt, groupId } = memoryLayout(item, now);
  let replaced: number[] = [];
  if (item.path) {
    replaced = (await sql.all<{ id: number }>('DELETE FROM "Memory" WHERE "groupId" = $1 RETURNING "id"', [groupId])).map((row) => row.id);
  }
  const ids: number[] = [];
  let deduplicated = 0;
  for (const [index, chunk] of chunks.entries()) {
    const hash = contentHash(chunk);
    const existing = await sql.get<{ id: number }>(
      `SELECT "id" FROM "Memory" WHERE "contentHash" = $1 AND "scope" = $2 AND "agentId" IS NOT DISTINCT FROM $3 AND "archivedAt" IS NULL
       ORDER BY "id" LIMIT 1`,
      [hash, item.scope, item.agentId],
    );
    if (existing) {
      ids.push(existing.id);
      deduplicated++;
      continue;
    }
    const { name, vector, status, model } = newChunk(item, chunk, index, chunks.length, plan);
    const row = await sql.get<{ id: number }>(
      `INSERT INTO "Memory" ("scope", "agentId", "name", "content", "source", "sourceTaskId", "sourcePath", "groupId", "chunkIndex",
         "embeddingStatus", "embedding", "embeddingModel", "embeddingDims", "embeddingAttempts",
         "contentHash", "expiresAt", "createdById", "createdAt", "updatedAt")
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $18)
       RETURNING "id"`,
      [
        item.scope,
        item.agentId,
        name,
        chunk,
        item.source,
        item.taskId ?? null,
        item.path ?? null,
        groupId,
        index,
        status,
        vector ? toBytes(vector) : null,
        model,
        vector ? vector.length : null,
        vector ? 1 : 0,
        hash,
        expiresAt === null ? null : new Date(expiresAt),
        createdById,
        new Date(now),
      ],
    );
    const id = row!.id;
    ids.push(id);
    if (vector) embedded.push({ id, vector, agentId: item.agentId, scope: item.scope });
  }
  return { ids, deduplicated, replaced };
}

/** Stores memories inside the caller's `pgTransaction` (with the audit event): storeMemoriesSync's twin. */
export async function storeMemoriesPg(sql: Sql, args: { items: NewMemory[]; actor: Actor; now?: number }): Promise<StoredMemories> {
  const plan = embedPlan();
  const now = args.now ?? Date.now();
  const embedded: EmbeddedMemory[] = [];
  await lockOwners(sql, args.items);
  const inserted: InsertedMemory[] = [];
  for (const item of args.items) inserted.push(await insertOne(sql, item, now, args.actor.id, plan, embedded));
  const { result, audit } = storeOutcome(args, plan, inserted, embedded);
  if (audit) await appendAuditPg(sql, audit);
  return result;
}

export async function createMemoriesPg(args: { items: NewMemory[]; actor: Actor }): Promise<{ ids: number[]; deduplicated: number }> {
  const result = await pgTransaction((sql) => storeMemoriesPg(sql, args));
  afterStore(result);
  return { ids: result.ids, deduplicated: result.deduplicated };
}

/** Stores a system memory (a task's outcome, a session summary) in its own transaction. */
export async function storeSystemMemoriesPg(items: NewMemory[]): Promise<void> {
  await createMemoriesPg({ items, actor: SYSTEM_ACTOR });
}

export async function deleteMemoryPg(args: { id: number; actor: Actor }): Promise<boolean> {
  const deleted = await pgTransaction(async (sql) => {
    const row = await sql.get<{ agentId: string | null; scope: string; source: string; name: string }>(
      'DELETE FROM "Memory" WHERE "id" = $1 RETURNING "agentId", "scope", "source", "name"',
      [args.id],
    );
    if (!row) return false;
    await appendAuditPg(sql, memoryDeletedAudit(args, row));
    return true;
  });
  if (deleted) dropFromIndexes([args.id], "deleted");
  return deleted;
}

// The PostgreSQL twin of memory-store.ts: the same chunks, content-hash dedup,
// expiry, file re-index and audit event, written inside the caller's
// `pgTransaction`. What differs: several app instances may store the same text
// (or re-index the same file) at once, where SQLite's one write lock made the
// duplicate check and the insert one step. Each (scope, agent) the call writes
// to is locked first (a transaction-level advisory lock, taken in sorted order),
// so two stores of one agent's memories line up and the second sees the first's
// rows. The audit append comes last, holding the audit chain's lock briefly.
import "server-only";
import { createHash, randomUUID } from "node:crypto";
import { type Actor, SYSTEM_ACTOR } from "@/lib/audit/audit-log";
import { appendAuditPg } from "@/lib/audit/audit-log.pg";
import { pgTransaction, type Sql } from "@/lib/pg";
import { chunkMarkdown } from "./chunker";
import { afterStore, contentHash, type EmbeddedMemory, type EmbedPlan, embedPlan, type NewMemory, SOURCE_TTL_DAYS } from "./memory-store";
import { dropFromIndexes } from "./search-index";
import { toBytes } from "./vector-index";

const DAY = 86_400_000;

/** Serializes writers of one (scope, agent) across the cluster until the transaction ends. */
async function lockOwners(sql: Sql, items: NewMemory[]): Promise<void> {
  const keys = [...new Set(items.map((item) => `swarmdeck:memory:${item.scope}:${item.agentId ?? ""}`))].sort();
  for (const key of keys) await sql.get("SELECT pg_advisory_xact_lock(hashtext($1))", [key]);
}

async function insertOne(sql: Sql, item: NewMemory, now: number, createdById: string | null, plan: EmbedPlan, embedded: EmbeddedMemory[]) {
  const chunks = chunkMarkdown(item.content);
  const ttl = SOURCE_TTL_DAYS[item.source];
  const expiresAt = ttl === null ? null : new Date(now + ttl * DAY);
  let groupId: string | null = chunks.length > 1 ? randomUUID() : null;
  let replaced: number[] = [];
  if (item.path) {
    // A re-index of the same file replaces its old chunks (indexed delete by group).
    groupId = `file:${createHash("sha256").update(`${item.agentId}|${item.scope}|${item.path}`).digest("hex").slice(0, 32)}`;
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
    const name = (chunks.length > 1 ? `${item.name} (part ${index + 1}/${chunks.length})` : item.name).slice(0, 300);
    // The same text the background embedder embeds (embedder.ts): name, blank line, content.
    const vector = plan.kind === "inline" ? plan.embedNow(`${name}\n\n${chunk}`) : null;
    const status = vector ? "done" : plan.kind === "none" ? "none" : "pending";
    const model = vector && plan.kind === "inline" ? plan.model : null;
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
        expiresAt,
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
export async function storeMemoriesPg(sql: Sql, args: { items: NewMemory[]; actor: Actor; now?: number }) {
  const plan = embedPlan();
  const now = args.now ?? Date.now();
  const ids: number[] = [];
  const replaced: number[] = [];
  const embedded: EmbeddedMemory[] = [];
  let deduplicated = 0;
  await lockOwners(sql, args.items);
  for (const item of args.items) {
    const one = await insertOne(sql, item, now, args.actor.id, plan, embedded);
    ids.push(...one.ids);
    replaced.push(...one.replaced);
    deduplicated += one.deduplicated;
  }
  const first = args.items[0];
  if (first) {
    await appendAuditPg(sql, {
      actor: args.actor,
      action: "memory.created",
      targetType: "memory",
      targetId: ids.length > 0 ? String(ids[0]) : null,
      agentId: args.items.length === 1 ? first.agentId : null,
      data: { count: ids.length, ids: ids.slice(0, 50), deduplicated, replaced: replaced.length, source: first.source, scope: first.scope },
    });
  }
  const pending = plan.kind === "pending" || (plan.kind === "inline" && embedded.length < ids.length - deduplicated);
  return { ids, replaced, deduplicated, embedded, pending };
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
    await appendAuditPg(sql, {
      actor: args.actor,
      action: "memory.deleted",
      targetType: "memory",
      targetId: String(args.id),
      agentId: row.agentId,
      data: { scope: row.scope, source: row.source, name: row.name },
    });
    return true;
  });
  if (deleted) dropFromIndexes([args.id], "deleted");
  return deleted;
}

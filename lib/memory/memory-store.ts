// Writing memories: chunking, exact-duplicate detection by content hash, expiry
// per source, the audit event, all in one write transaction on the raw
// connection (the hot path: thousands of memories a second).
import "server-only";
import { randomUUID } from "node:crypto";
import type Database from "better-sqlite3";
import { type Actor, type AuditInput, appendAuditSync } from "@/lib/audit/audit-log";
import type { MemoryScope, MemorySource } from "@/lib/contracts/memory";
import { prepare, usesPostgres, writeTransaction } from "@/lib/db";
import { sha256Hex } from "@/lib/sha256";
import { chunkMarkdown } from "./chunker";
import { kickEmbedder } from "./embedder";
import { activeEmbedder } from "./embedders";
import { dropFromIndexes, memoryIndex } from "./search-index";
import { toBytes } from "./vector-index";

const DAY = 86_400_000;

/** How long a memory of each source lives (null: until deleted). */
export const SOURCE_TTL_DAYS: Record<MemorySource, number | null> = {
  manual: null,
  lead_feedback: null,
  file_index: null,
  reflection: 365,
  task_failure: 365,
  task_completion: 180,
  session_summary: 90,
};

export type NewMemory = {
  name: string;
  content: string;
  scope: MemoryScope;
  source: MemorySource;
  agentId: string | null;
  taskId?: string | null;
  path?: string | null;
};

export function contentHash(content: string): string {
  return sha256Hex(content.trim());
}

/** A memory embedded as it was stored (the embedded default), for the vector index once committed. */
export type EmbeddedMemory = { id: number; vector: Float32Array; agentId: string | null; scope: string };

/**
 * How a new row gets its embedding. An embedder that answers at once (the
 * embedded default: `embedNow`) embeds it in the same transaction as the insert:
 * the memory is searchable by meaning the moment its write is answered, and no
 * second write (the background embedder's UPDATE) rewrites the row. A provider
 * is a network call: its rows are stored 'pending' for the background embedder.
 */
export type EmbedPlan = { kind: "none" | "pending" } | { kind: "inline"; model: string; embedNow: (text: string) => Float32Array | null };

export function embedPlan(): EmbedPlan {
  const embedder = activeEmbedder();
  if (!embedder) return { kind: "none" };
  const { embedNow, model } = embedder;
  return embedNow ? { kind: "inline", model, embedNow } : { kind: "pending" };
}

/** Where each of a new memory's chunks goes (both stores): its chunks, its expiry (null: none) and its group. */
export function memoryLayout(item: NewMemory, now: number): { chunks: string[]; expiresAt: number | null; groupId: string | null } {
  const chunks = chunkMarkdown(item.content);
  const ttl = SOURCE_TTL_DAYS[item.source];
  let groupId: string | null = chunks.length > 1 ? randomUUID() : null;
  // A re-index of the same file replaces its old chunks (indexed delete by group).
  if (item.path) groupId = `file:${sha256Hex(`${item.agentId}|${item.scope}|${item.path}`).slice(0, 32)}`;
  return { chunks, expiresAt: ttl === null ? null : now + ttl * DAY, groupId };
}

/** A chunk about to be inserted (both stores): its name and its embedding, made now when the plan embeds inline. */
export function newChunk(item: NewMemory, chunk: string, index: number, count: number, plan: EmbedPlan) {
  const name = (count > 1 ? `${item.name} (part ${index + 1}/${count})` : item.name).slice(0, 300);
  // The same text the background embedder embeds (embedder.ts): name, blank line, content.
  const vector = plan.kind === "inline" ? plan.embedNow(`${name}\n\n${chunk}`) : null;
  return {
    name,
    vector,
    status: vector ? "done" : plan.kind === "none" ? "none" : "pending",
    model: vector && plan.kind === "inline" ? plan.model : null,
  };
}

/** What inserting one NewMemory did: an id per chunk (an existing one for a duplicate), and the rows its re-index replaced. */
export type InsertedMemory = { ids: number[]; deduplicated: number; replaced: number[] };

export type StoredMemories = { ids: number[]; replaced: number[]; deduplicated: number; embedded: EmbeddedMemory[]; pending: boolean };

/**
 * What a store returns once every item is inserted, and its `memory.created`
 * audit input (null when there were no items), on both stores.
 */
export function storeOutcome(
  args: { items: NewMemory[]; actor: Actor },
  plan: EmbedPlan,
  inserted: InsertedMemory[],
  embedded: EmbeddedMemory[],
): { result: StoredMemories; audit: AuditInput | null } {
  const ids = inserted.flatMap((one) => one.ids);
  const replaced = inserted.flatMap((one) => one.replaced);
  const deduplicated = inserted.reduce((sum, one) => sum + one.deduplicated, 0);
  const first = args.items[0];
  const audit: AuditInput | null = first
    ? {
        actor: args.actor,
        action: "memory.created",
        targetType: "memory",
        targetId: ids.length > 0 ? String(ids[0]) : null,
        agentId: args.items.length === 1 ? first.agentId : null,
        data: {
          count: ids.length,
          ids: ids.slice(0, 50),
          deduplicated,
          replaced: replaced.length,
          source: first.source,
          scope: first.scope,
        },
      }
    : null;
  const pending = plan.kind === "pending" || (plan.kind === "inline" && embedded.length < ids.length - deduplicated);
  return { result: { ids, replaced, deduplicated, embedded, pending }, audit };
}

function insertOne(
  sqlite: Database.Database,
  item: NewMemory,
  now: number,
  createdById: string | null,
  plan: EmbedPlan,
  embedded: EmbeddedMemory[],
): InsertedMemory {
  const { chunks, expiresAt, groupId } = memoryLayout(item, now);
  let replaced: number[] = [];
  if (item.path) {
    replaced = (prepare(sqlite, "SELECT id FROM Memory WHERE groupId = ?").all(groupId) as { id: number }[]).map((row) => row.id);
    if (replaced.length > 0) prepare(sqlite, "DELETE FROM Memory WHERE groupId = ?").run(groupId);
  }
  const ids: number[] = [];
  let deduplicated = 0;
  chunks.forEach((chunk, index) => {
    const hash = contentHash(chunk);
    // The unary `+` keeps SQLite on the contentHash index: left to itself it picks
    // (agentId, scope), which scans every memory of that agent (or the whole swarm
    // scope) on each insert, an O(n) cost that made ingest fall as the table grew.
    const existing = prepare(
      sqlite,
      "SELECT id FROM Memory WHERE contentHash = ? AND +scope = ? AND +agentId IS ? AND archivedAt IS NULL LIMIT 1",
    ).get(hash, item.scope, item.agentId) as { id: number } | undefined;
    if (existing) {
      ids.push(existing.id);
      deduplicated++;
      return;
    }
    const { name, vector, status, model } = newChunk(item, chunk, index, chunks.length, plan);
    const result = prepare(
      sqlite,
      `INSERT INTO Memory (scope, agentId, name, content, source, sourceTaskId, sourcePath, groupId, chunkIndex,
         embeddingStatus, embedding, embeddingModel, embeddingDims, embeddingAttempts,
         contentHash, expiresAt, createdById, createdAt, updatedAt)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
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
      now,
      now,
    );
    const id = Number(result.lastInsertRowid);
    ids.push(id);
    if (vector) embedded.push({ id, vector, agentId: item.agentId, scope: item.scope });
  });
  return { ids, deduplicated, replaced };
}

/** Stores memories inside the caller's raw write transaction (with the audit event). */
export function storeMemoriesSync(sqlite: Database.Database, args: { items: NewMemory[]; actor: Actor; now?: number }): StoredMemories {
  const plan = embedPlan();
  const now = args.now ?? Date.now();
  const embedded: EmbeddedMemory[] = [];
  const inserted = args.items.map((item) => insertOne(sqlite, item, now, args.actor.id, plan, embedded));
  const { result, audit } = storeOutcome(args, plan, inserted, embedded);
  if (audit) appendAuditSync(sqlite, audit);
  return result;
}

/**
 * After a store committed: drop replaced vectors from the index, add the ones
 * embedded as they were stored, and wake the background embedder when rows wait for it.
 */
export function afterStore(result: { replaced: number[]; embedded?: EmbeddedMemory[]; pending: boolean }): void {
  dropFromIndexes(result.replaced, "deleted");
  const index = memoryIndex();
  if (index && result.embedded) {
    for (const row of result.embedded) index.add(row.id, row.vector, row);
  }
  if (result.pending && activeEmbedder()) kickEmbedder();
}

/**
 * Stores memories (each chunked) and returns the ids, one per chunk, in order;
 * an exact duplicate of a live memory in the same scope and agent returns the
 * existing id instead of a second row. One audit event per call.
 */
export async function createMemories(args: { items: NewMemory[]; actor: Actor }): Promise<{ ids: number[]; deduplicated: number }> {
  if (usesPostgres()) return (await import("./memory-store.pg")).createMemoriesPg(args);
  const result = await writeTransaction((sqlite) => storeMemoriesSync(sqlite, args));
  afterStore(result);
  return { ids: result.ids, deduplicated: result.deduplicated };
}

/** The `memory.deleted` audit input (both stores). */
export function memoryDeletedAudit(
  args: { id: number; actor: Actor },
  row: { agentId: string | null; scope: string; source: string; name: string },
): AuditInput {
  return {
    actor: args.actor,
    action: "memory.deleted",
    targetType: "memory",
    targetId: String(args.id),
    agentId: row.agentId,
    data: { scope: row.scope, source: row.source, name: row.name },
  };
}

/** Deletes one memory (and nothing else); audited. */
export async function deleteMemory(args: { id: number; actor: Actor }): Promise<boolean> {
  if (usesPostgres()) return (await import("./memory-store.pg")).deleteMemoryPg(args);
  const deleted = await writeTransaction((sqlite) => {
    const row = prepare(sqlite, "SELECT id, agentId, scope, source, name FROM Memory WHERE id = ?").get(args.id) as
      | { id: number; agentId: string | null; scope: string; source: string; name: string }
      | undefined;
    if (!row) return false;
    prepare(sqlite, "DELETE FROM Memory WHERE id = ?").run(args.id);
    appendAuditSync(sqlite, memoryDeletedAudit(args, row));
    return true;
  });
  if (deleted) dropFromIndexes([args.id], "deleted");
  return deleted;
}

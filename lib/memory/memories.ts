// Reading memories for the operator API and the Memory page: a filtered,
// cursor-paged list (newest first) and one memory in full.
import "server-only";
import type { z } from "zod";
import type { listMemoriesQuerySchema, MemoryDetail } from "@/lib/contracts/memory";
import { prepare, usesPostgres, withSqlite } from "@/lib/db";
import { catchUpFts } from "./fts-backlog";
import { toFtsQuery } from "./text";

export type Row = {
  id: number;
  name: string;
  content: string;
  scope: "agent" | "swarm";
  source: MemoryDetail["source"];
  agentId: string | null;
  createdAt: number;
  sourceTaskId: string | null;
  sourcePath: string | null;
  chunkIndex: number;
  groupId: string | null;
  embeddingStatus: MemoryDetail["embeddingStatus"];
  embeddingError: string | null;
  accessCount: number;
  lastAccessedAt: number | null;
  expiresAt: number | null;
  duplicateOfId: number | null;
  archivedAt: number | null;
};

const COLUMNS = `m.id, m.name, m.content, m.scope, m.source, m.agentId, m.createdAt, m.sourceTaskId, m.sourcePath, m.chunkIndex,
  m.groupId, m.embeddingStatus, m.embeddingError, m.accessCount, m.lastAccessedAt, m.expiresAt, m.duplicateOfId, m.archivedAt`;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function toDetail(row: Row): MemoryDetail {
  return {
    ...row,
    createdAt: new Date(row.createdAt).toISOString(),
    lastAccessedAt: iso(row.lastAccessedAt),
    expiresAt: iso(row.expiresAt),
    archivedAt: iso(row.archivedAt),
  };
}

export async function listMemories(args: { filter: z.infer<typeof listMemoriesQuerySchema> }) {
  if (usesPostgres()) return (await import("./memories.pg")).listMemoriesPg(args);
  const { filter } = args;
  const where = ["m.archivedAt IS NULL"];
  const params: Record<string, unknown> = {};
  if (filter.agentId) {
    where.push("m.agentId = @agentId");
    params.agentId = filter.agentId;
  }
  if (filter.scope) {
    where.push("m.scope = @scope");
    params.scope = filter.scope;
  }
  if (filter.source) {
    where.push("m.source = @source");
    params.source = filter.source;
  }
  if (filter.cursor) {
    where.push("m.id < @cursor");
    params.cursor = filter.cursor;
  }
  const fts = filter.q ? toFtsQuery(filter.q) : null;
  if (filter.q && !fts) return { memories: [], nextCursor: null };
  if (fts) {
    where.push("m.id IN (SELECT rowid FROM memory_fts WHERE memory_fts MATCH @fts)");
    params.fts = fts;
  }
  const rows = await withSqlite((sqlite) => {
    if (fts) catchUpFts(sqlite); // memories written since the last pass (fts-backlog.ts)
    return prepare(sqlite, `SELECT ${COLUMNS} FROM Memory m WHERE ${where.join(" AND ")} ORDER BY m.id DESC LIMIT ${filter.limit + 1}`).all(
      params,
    ) as Row[];
  });
  const page = rows.slice(0, filter.limit);
  return { memories: page.map(toDetail), nextCursor: rows.length > filter.limit ? (page.at(-1)?.id ?? null) : null };
}

export async function getMemory(args: { id: number }): Promise<MemoryDetail | null> {
  if (usesPostgres()) return (await import("./memories.pg")).getMemoryPg(args);
  const row = await withSqlite(
    (sqlite) => prepare(sqlite, `SELECT ${COLUMNS} FROM Memory m WHERE m.id = ?`).get(args.id) as Row | undefined,
  );
  return row ? toDetail(row) : null;
}

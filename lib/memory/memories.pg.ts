// The PostgreSQL twin of memories.ts: the operator's filtered, cursor-paged list
// (newest first) and one memory in full. The list's text filter matches the
// query's words (any of them, as toFtsQuery's OR on SQLite) against the
// "searchVector" tsvector (search.pg.ts).
import "server-only";
import type { z } from "zod";
import type { listMemoriesQuerySchema, MemoryDetail } from "@/lib/contracts/memory";
import { pgSql } from "@/lib/pg";
import { type Row, toDetail } from "./memories";
import { queryWords, tsQuery } from "./search.pg";

const COLUMNS = `m."id", m."name", m."content", m."scope", m."source", m."agentId", m."createdAt", m."sourceTaskId", m."sourcePath",
  m."chunkIndex", m."groupId", m."embeddingStatus", m."embeddingError", m."accessCount", m."lastAccessedAt", m."expiresAt",
  m."duplicateOfId", m."archivedAt"`;

export async function listMemoriesPg(args: { filter: z.infer<typeof listMemoriesQuerySchema> }) {
  const { filter } = args;
  const where = ['m."archivedAt" IS NULL'];
  const params: unknown[] = [];
  const p = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  if (filter.agentId) where.push(`m."agentId" = ${p(filter.agentId)}`);
  if (filter.scope) where.push(`m."scope" = ${p(filter.scope)}`);
  if (filter.source) where.push(`m."source" = ${p(filter.source)}`);
  if (filter.cursor) where.push(`m."id" < ${p(filter.cursor)}`);
  const terms = filter.q ? queryWords(filter.q) : null;
  if (filter.q && !terms) return { memories: [], nextCursor: null };
  if (terms) where.push(`m."searchVector" @@ websearch_to_tsquery('english', ${p(tsQuery(terms, "or"))})`);
  const rows = await pgSql().all<Row>(
    `SELECT ${COLUMNS} FROM "Memory" m WHERE ${where.join(" AND ")} ORDER BY m."id" DESC LIMIT ${filter.limit + 1}`,
    params,
  );
  const page = rows.slice(0, filter.limit);
  return { memories: page.map(toDetail), nextCursor: rows.length > filter.limit ? (page.at(-1)?.id ?? null) : null };
}

export async function getMemoryPg(args: { id: number }): Promise<MemoryDetail | null> {
  const row = await pgSql().get<Row>(`SELECT ${COLUMNS} FROM "Memory" m WHERE m."id" = $1`, [args.id]);
  return row ? toDetail(row) : null;
}

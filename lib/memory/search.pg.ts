// The PostgreSQL twin of search.ts: the same candidates, scores, visibility,
// filters, result shape and retrieval record. What differs:
//
// - Keyword candidates come from the in-process keyword index as on SQLite, kept in
//   step with every instance's writes through the change log (keyword-search.pg.ts).
//   Until it is loaded they come from the table itself: "Memory"."searchVector" (a stored tsvector over
//   name and content with the english configuration, GIN-indexed; see
//   prisma/postgresql/migrations/20261126000000_init) matched against the query's
//   words (the same words toFtsQuery in text.ts picks, given to
//   websearch_to_tsquery, which never fails on user text), all of them first and
//   any of them when too few memories hold all, ranked by ts_rank_cd. The rank only
//   separates memories of equal coverage, as FTS5's bm25() does on SQLite: it is
//   passed to keywordScore as a bm25-like number whose strength s/(s+10) equals
//   ts_rank_cd normalised to 0..1 (rank / (rank + 1)).
// - Vector candidates come from this instance's in-process index, caught up with
//   every instance's changes before the search (search-index.pg.ts).
// - Visibility is one WHERE clause with positional parameters (no unary `+`: the
//   PostgreSQL planner needs no steering here).
import "server-only";
import { pgSql, pgTransaction, type Sql } from "@/lib/pg";
import { localEmbedderEnabled } from "./embedders";
import { keywordTopKPg } from "./keyword-search.pg";
import { expansionTerms, prepareQuery } from "./rerank";
import {
  indexFilter,
  queryEmbedding,
  type Row,
  type SearchArgs,
  type SearchMode,
  type SearchResult,
  scoreRows,
  VECTOR_RESCORE,
} from "./search";
import { bestOf, indexEstimates } from "./search-index";
import { catchUpIndexPg, exactCosinesPg } from "./search-index.pg";
import { STOP_WORDS, words } from "./text";

/** The visibility clause of search.ts's `visibility`, its parameters appended to `params`. */
export function visibilityPg(args: Pick<SearchArgs, "scope" | "viewer" | "agentId">, params: unknown[]): string {
  const p = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const parts = ['m."archivedAt" IS NULL', 'm."supersededById" IS NULL', `(m."expiresAt" IS NULL OR m."expiresAt" > ${p(new Date())})`];
  if (args.scope !== "all") parts.push(`m."scope" = ${p(args.scope)}`);
  const restrictTo = args.viewer.kind === "agent" && !args.viewer.isLead ? args.viewer.agentId : args.agentId;
  if (restrictTo) parts.push(`(m."scope" = 'swarm' OR m."agentId" = ${p(restrictTo)})`);
  return parts.join(" AND ");
}

/**
 * The words of a query as toFtsQuery (text.ts) picks them (stop words dropped
 * unless nothing else is left, at most 32), or null when there is none.
 */
export function queryWords(text: string): string[] | null {
  const terms = [...new Set(words(text).filter((word) => !STOP_WORDS.has(word)))].slice(0, 32);
  const chosen = terms.length > 0 ? terms : [...new Set(words(text))].slice(0, 32);
  return chosen.length > 0 ? chosen : null;
}

/**
 * A tsquery of the words, all (AND) or any (OR). The words are letters and
 * digits only (words() in text.ts), and websearch_to_tsquery reads anything
 * without a syntax error; "or" between words is its OR.
 */
export function tsQuery(terms: string[], join: "and" | "or"): string {
  return terms.join(join === "and" ? " " : " or ");
}

/** ts_rank_cd normalised to 0..1 (flag 32), as a bm25()-like rank: keywordScore reads its strength back as exactly that. */
function asBm25(rank: number): number {
  const r = Math.min(Math.max(rank, 0), 0.999_999);
  return -(10 * r) / (1 - r);
}

async function keywordPass(sql: Sql, query: string, args: SearchArgs, n: number): Promise<{ id: number; rank: number }[]> {
  const params: unknown[] = [query];
  const where = visibilityPg(args, params);
  const rows = await sql.all<{ id: number; rank: number }>(
    `SELECT m."id", ts_rank_cd(m."searchVector", q.query, 32) AS "rank"
     FROM "Memory" m, websearch_to_tsquery('english', $1) AS q(query)
     WHERE m."searchVector" @@ q.query AND ${where}
     ORDER BY "rank" DESC, m."id" DESC LIMIT ${Math.max(1, Math.floor(n))}`,
    params,
  );
  return rows.map((row) => ({ id: row.id, rank: asBm25(row.rank) }));
}

/**
 * The best keyword matches a viewer may see for `text` (its words: `terms`): from
 * the in-process keyword index (keyword-search.pg.ts) once it is loaded, as on
 * SQLite; until then from the tsvector column (keywordCandidates in search.ts):
 * memories holding every word first (full coverage, the top keyword scores), any
 * word only when those are too few.
 */
async function keywordCandidatesPg(sql: Sql, text: string, terms: string[], args: SearchArgs, n: number) {
  const fromIndex = await keywordTopKPg(text, n, (index) => indexFilter(args, (id) => index.findAgentCode(id)));
  if (fromIndex) return fromIndex;
  if (terms.length > 1) {
    const all = await keywordPass(sql, tsQuery(terms, "and"), args, n);
    if (all.length >= Math.min(n, 10)) return all;
  }
  return keywordPass(sql, tsQuery(terms, "or"), args, n);
}

function hydrateSqlPg(where: string, withEmbedding: boolean): string {
  const embedding = withEmbedding
    ? `encode(m."embedding", 'hex') AS "embedding", m."embeddingDims"`
    : `NULL::text AS "embedding", NULL::int AS "embeddingDims"`;
  return `SELECT m."id", m."name", m."content", m."scope", m."source", m."agentId", m."createdAt", m."accessCount", ${embedding}
     FROM "Memory" m WHERE m."id" = ANY($1::int[]) AND ${where}`;
}

async function hydratePg(sql: Sql, ids: number[], args: SearchArgs, withEmbedding: boolean): Promise<Row[]> {
  if (ids.length === 0) return [];
  const params: unknown[] = [ids];
  const where = visibilityPg(args, params);
  return sql.all<Row>(hydrateSqlPg(where, withEmbedding), params);
}

export async function searchMemoriesPg(
  args: SearchArgs,
): Promise<{ results: SearchResult[]; mode: SearchMode; fallbackReason: string | null }> {
  const started = performance.now();
  const forced = args.mode ?? "auto";
  const prepared = prepareQuery(args.query, { semantic: localEmbedderEnabled() });
  const terms = forced === "vector" ? null : queryWords(args.query);
  const expansion = terms && prepared.semantic ? expansionTerms(prepared).join(" ") : "";
  const expandedTerms = expansion ? queryWords(expansion) : null;
  const pool = Math.max(args.limit * 3, 30);

  // The query's embedding and the keyword candidates are asked for at once (search.ts does the same).
  const sql = pgSql();
  const [{ embedder, queryVector, fallbackReason, index }, keyword, related] = await Promise.all([
    // Every instance's inserts, re-embeddings and deletes into this instance's vector index first.
    queryEmbedding(args).then(async (embedding) => {
      if (embedding.index) await catchUpIndexPg();
      return embedding;
    }),
    terms ? keywordCandidatesPg(sql, args.query, terms, args, pool) : Promise.resolve([]),
    expandedTerms ? keywordCandidatesPg(sql, expansion, expandedTerms, args, pool / 2) : Promise.resolve([]),
  ]);
  const bm25 = new Map(keyword.map((hit) => [hit.id, hit.rank]));
  const ids = new Set([...bm25.keys(), ...related.map((hit) => hit.id)]);
  let cosines: Map<number, number> | null = null;
  if (index && queryVector) {
    const filter = indexFilter(args, (id) => index.findAgentCode(id));
    const estimated = indexEstimates(index, queryVector, { limit: pool, rescore: VECTOR_RESCORE, filter }).map((hit) => hit.id);
    // One read of the stored vectors: the estimates' to re-score them, the keyword candidates' to score them.
    cosines = await exactCosinesPg(sql, index, queryVector, [...new Set([...estimated, ...ids])]);
    for (const hit of bestOf(cosines, estimated, pool)) ids.add(hit.id);
  }
  const rows = await hydratePg(sql, [...ids], args, queryVector !== null && cosines === null);

  const mode: SearchMode = index && queryVector ? (terms ? "hybrid" : "vector") : "keyword";
  const scored = scoreRows(rows, { mode, prepared, queryVector, embedder, bm25, cosines });
  const results = scored.filter((result) => result.score > 0 && result.score >= (args.minScore ?? 0)).slice(0, args.limit);

  const durationMs = performance.now() - started;
  const now = new Date();
  // Access counts in id order (concurrent searches lock shared rows in one order) and the retrieval record.
  const touched = results.map((result) => result.id).sort((a, b) => a - b);
  await pgTransaction(async (tx) => {
    if (touched.length > 0) {
      await tx.run(
        `UPDATE "Memory" SET "accessCount" = "accessCount" + 1, "lastAccessedAt" = $1
         WHERE "id" IN (SELECT "id" FROM "Memory" WHERE "id" = ANY($2::int[]) ORDER BY "id" FOR UPDATE)`,
        [now, touched],
      );
    }
    await tx.run(
      `INSERT INTO "MemoryRetrieval" ("kind", "agentId", "taskId", "query", "mode", "embeddingUsed", "fallbackReason", "resultCount",
         "topScore", "threshold", "results", "durationMs", "createdAt")
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
      [
        args.record.kind,
        args.record.agentId,
        args.record.taskId ?? null,
        args.query.slice(0, 2000),
        mode,
        mode !== "keyword",
        fallbackReason,
        results.length,
        results[0]?.score ?? null,
        args.minScore ?? null,
        JSON.stringify(scored.slice(0, 20).map((result) => ({ id: result.id, score: result.score }))),
        durationMs,
        now,
      ],
    );
  });
  return { results, mode, fallbackReason };
}

// Memory search: FTS5 BM25 always, vector search when a provider and the index
// are there, fused into one 0..1 score (scoring.ts), with visibility in the
// WHERE clause and every search recorded for retrieval health.
import "server-only";
import type Database from "better-sqlite3";
import type { MemoryScope, MemorySource } from "@/lib/contracts/memory";
import { prepare, usesPostgres, withSqlite, writeTransaction } from "@/lib/db";
import { activeEmbedder, type Embedder, localEmbedderEnabled } from "./embedders";
import { catchUpFts } from "./fts-backlog";
import { RELATED_TOUCHED } from "./keyword-index";
import { keywordIndex, keywordTopK } from "./keyword-search";
import { expansionTerms, prepareQuery, relevance as termRelevance } from "./rerank";
import { finalScore, fuseLocal, fuseScores, keywordScore, localVectorScore, rankingFactor, vectorScore } from "./scoring";
import { bestOf, ensureIndex, exactCosines, indexEstimates, indexReady, memoryIndex } from "./search-index";
import { toFtsQuery } from "./text";
import { cosine, type VectorFilter, type VectorIndex, vectorFromHex } from "./vector-index";

/** Who is searching: operators and lead agents see everything; a worker its own agent scope and the swarm. */
export type Viewer = { kind: "operator" } | { kind: "agent"; agentId: string; isLead: boolean };

export type SearchMode = "keyword" | "vector" | "hybrid";

export type SearchResult = {
  id: number;
  name: string;
  content: string;
  score: number;
  scope: MemoryScope;
  source: MemorySource;
  agentId: string | null;
  createdAt: string;
  keywordScore: number;
  vectorScore: number | null;
};

export type SearchArgs = {
  query: string;
  limit: number;
  scope: "agent" | "swarm" | "all";
  viewer: Viewer;
  /** Operators may narrow agent-scope memories to one agent. */
  agentId?: string;
  /** Force one path (operators comparing modes); default auto. */
  mode?: "auto" | "keyword" | "vector" | "hybrid";
  /** Drop results below this score. */
  minScore?: number;
  record: { kind: "search" | "injection"; agentId: string | null; taskId?: string | null };
};

export type Row = {
  id: number;
  name: string;
  content: string;
  scope: MemoryScope;
  source: MemorySource;
  agentId: string | null;
  createdAt: number;
  accessCount: number;
  /** hex(embedding): see vectorFromHex. */
  embedding: string | null;
  embeddingDims: number | null;
};

/**
 * The visibility clause and its parameters (named @now, @scope, @agentFilter).
 * Every column carries a unary `+`, so SQLite never answers it from an index:
 * the candidates' ids (or the FTS5 match) drive every query it is part of. Left
 * to itself, SQLite read the worker's OR (swarm, or its own agent) as a
 * MULTI-INDEX OR over Memory(scope) and Memory(agentId): every swarm memory and
 * every memory of the agent, per search (~0.4 s at 100k on a busy machine).
 */
export function visibility(args: SearchArgs): { sql: string; params: Record<string, unknown> } {
  const parts = ["+m.archivedAt IS NULL", "+m.supersededById IS NULL", "(+m.expiresAt IS NULL OR +m.expiresAt > @now)"];
  const params: Record<string, unknown> = { now: Date.now() };
  if (args.scope !== "all") {
    parts.push("+m.scope = @scope");
    params.scope = args.scope;
  }
  const restrictTo = args.viewer.kind === "agent" && !args.viewer.isLead ? args.viewer.agentId : args.agentId;
  if (restrictTo) {
    parts.push("(+m.scope = 'swarm' OR +m.agentId = @agentFilter)");
    params.agentFilter = restrictTo;
  }
  return { sql: parts.join(" AND "), params };
}

/** Visibility as the in-memory indexes (vector and keyword) apply it inside their scans. */
export function indexFilter(args: SearchArgs, agentCode: (id: string) => number): VectorFilter {
  const restrictTo = args.viewer.kind === "agent" && !args.viewer.isLead ? args.viewer.agentId : args.agentId;
  return {
    agent: args.scope !== "swarm",
    swarm: args.scope !== "agent",
    agentCode: restrictTo ? agentCode(restrictTo) : -1,
  };
}

const queryCache = new Map<string, Float32Array>();
export async function embedQuery(embedder: Embedder, query: string, timeoutMs: number): Promise<Float32Array> {
  const key = `${embedder.model}\n${query}`;
  const cached = queryCache.get(key);
  if (cached) return cached;
  const [vector] = await embedder.embed([query], { timeoutMs });
  if (!vector) throw new Error("the provider answered no embedding");
  if (queryCache.size > 500) queryCache.clear();
  queryCache.set(key, vector);
  return vector;
}

/**
 * The best keyword matches a viewer may see. Fast path: FTS5 ranks on its own
 * (no per-match join), then visibility is checked for that short list; only a
 * narrow view that keeps too few of them pays for the joined query.
 */
function keywordCandidates(sqlite: Database.Database, fts: string, where: ReturnType<typeof visibility>, n: number) {
  catchUpFts(sqlite); // memories written since the last pass (fts-backlog.ts)
  const wide = n * 4;
  // Memories holding every query word come first (they have full coverage, the
  // top keyword scores); intersecting doclists is cheap where OR-ing common words
  // ranks a large share of the table. OR only when they are too few.
  if (fts.includes(" OR ")) {
    const all = keywordPass(sqlite, fts.replaceAll(" OR ", " AND "), where, n, wide);
    if (all.length >= Math.min(n, 10)) return all;
  }
  return keywordPass(sqlite, fts, where, n, wide);
}

function keywordPass(sqlite: Database.Database, fts: string, where: ReturnType<typeof visibility>, n: number, wide: number) {
  const ranked = prepare(
    sqlite,
    `SELECT rowid AS id, bm25(memory_fts, 2.0, 1.0) AS rank FROM memory_fts WHERE memory_fts MATCH ? ORDER BY rank LIMIT ${wide}`,
  ).all(fts) as { id: number; rank: number }[];
  const visible = new Set(
    (
      prepare(sqlite, `SELECT m.id AS id FROM Memory m WHERE m.id IN (SELECT value FROM json_each(@ids)) AND ${where.sql}`).all({
        ...where.params,
        ids: JSON.stringify(ranked.map((hit) => hit.id)),
      }) as { id: number }[]
    ).map((row) => row.id),
  );
  const kept = ranked.filter((hit) => visible.has(hit.id));
  if (kept.length >= n || ranked.length < wide) return kept.slice(0, n);
  return prepare(
    sqlite,
    `SELECT m.id AS id, bm25(memory_fts, 2.0, 1.0) AS rank FROM memory_fts JOIN Memory m ON m.id = memory_fts.rowid
     WHERE memory_fts MATCH @fts AND ${where.sql} ORDER BY rank LIMIT ${n}`,
  ).all({ ...where.params, fts }) as { id: number; rank: number }[];
}

/**
 * The candidates' rows, those the viewer may see (@ids: a JSON array of memory ids);
 * with their stored embeddings (as hex, see vectorFromHex) only when a query vector
 * will be compared with them: a keyword search does not read the vectors' pages.
 */
export function hydrateSql(where: string, withEmbedding = true): string {
  const embedding = withEmbedding ? "hex(m.embedding) AS embedding, m.embeddingDims" : "NULL AS embedding, NULL AS embeddingDims";
  return `SELECT m.id, m.name, m.content, m.scope, m.source, m.agentId, m.createdAt, m.accessCount, ${embedding}
     FROM Memory m WHERE m.id IN (SELECT value FROM json_each(@ids)) AND ${where}`;
}

function hydrate(sqlite: Database.Database, ids: number[], where: ReturnType<typeof visibility>, withEmbedding: boolean): Row[] {
  if (ids.length === 0) return [];
  return prepare(sqlite, hydrateSql(where.sql, withEmbedding)).all({ ...where.params, ids: JSON.stringify(ids) }) as Row[];
}

/** Hides a memory from the keyword index when SQL says no viewer may see it any more. */
function hideIfGone(sqlite: Database.Database, id: number) {
  const row = prepare(
    sqlite,
    "SELECT (archivedAt IS NULL AND supersededById IS NULL AND (expiresAt IS NULL OR expiresAt > ?)) AS live FROM Memory WHERE id = ?",
  ).get(Date.now(), id) as { live: number } | undefined;
  if (!row) keywordIndex()?.remove(id);
  else if (row.live !== 1) keywordIndex()?.hide(id);
}

/**
 * Vector candidates re-scored exactly per search: the exact top 10 are within the
 * index's best 300 estimates 98-99% of the time on clustered vectors, 72% on the
 * benchmark's long-tailed corpus at 100k (vector-index.ts; bench:memory -- --index).
 */
export const VECTOR_RESCORE = 300;

/**
 * The candidates' scores on the one 0..1 scale (scoring.ts), best first; shared
 * with the PostgreSQL twin (search.pg.ts).
 */
export function scoreRows(
  rows: Row[],
  context: {
    mode: SearchMode;
    prepared: ReturnType<typeof prepareQuery>;
    queryVector: Float32Array | null;
    embedder: Embedder | null;
    bm25: Map<number, number>;
    /** The rows' exact cosines with queryVector, when read already (else from each row's embedding). */
    cosines: Map<number, number> | null;
  },
): SearchResult[] {
  const { mode, prepared, queryVector, embedder, bm25, cosines } = context;
  const stored = queryVector ? new Float32Array(queryVector.length) : null;
  const similarityOf = (row: Row): number | null => {
    if (!queryVector || !stored) return null;
    if (cosines) return cosines.get(row.id) ?? null;
    const vector = row.embedding && row.embeddingDims === stored.length ? vectorFromHex(row.embedding, stored) : null;
    return vector ? cosine(queryVector, vector) : null;
  };
  const scored: SearchResult[] = rows.map((row) => {
    const kw = keywordScore(termRelevance(prepared, row.name, row.content), bm25.get(row.id) ?? null);
    let vec: number | null = null;
    const similarity = similarityOf(row);
    if (similarity !== null) vec = embedder?.kind === "local" ? localVectorScore(similarity) : vectorScore(similarity);
    const relevance =
      mode === "keyword" || vec === null
        ? kw
        : mode === "vector"
          ? vec
          : embedder?.kind === "local"
            ? fuseLocal(kw, vec)
            : fuseScores(kw, vec);
    const score = finalScore(relevance, rankingFactor({ source: row.source, createdAt: row.createdAt, accessCount: row.accessCount }));
    return {
      id: row.id,
      name: row.name,
      content: row.content,
      score: Math.round(score * 10_000) / 10_000,
      scope: row.scope,
      source: row.source,
      agentId: row.agentId,
      createdAt: new Date(row.createdAt).toISOString(),
      keywordScore: Math.round(kw * 10_000) / 10_000,
      vectorScore: vec === null ? null : Math.round(vec * 10_000) / 10_000,
    };
  });
  scored.sort((a, b) => b.score - a.score || b.id - a.id);
  return scored;
}

/**
 * The query's embedding, with a short timeout and a recorded reason when it is
 * missing, and the vector index to search it in (null: none, or not loaded yet).
 * Both stores.
 */
export async function queryEmbedding(args: SearchArgs): Promise<{
  embedder: Embedder | null;
  queryVector: Float32Array | null;
  fallbackReason: string | null;
  index: VectorIndex | null;
}> {
  const embedder = activeEmbedder();
  let queryVector: Float32Array | null = null;
  let fallbackReason: string | null = null;
  if ((args.mode ?? "auto") === "keyword") fallbackReason = "keyword_requested";
  else if (!embedder) fallbackReason = "no_provider";
  else {
    void ensureIndex();
    try {
      queryVector = await embedQuery(embedder, args.query, Number(process.env.SWARMDECK_QUERY_EMBED_TIMEOUT_MS ?? 1500) || 1500);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      fallbackReason = /timed? ?out|abort/i.test(message) ? "embedding_timeout" : `embedding_failed: ${message.slice(0, 200)}`;
    }
    if (queryVector && !indexReady()) fallbackReason = "index_loading";
  }
  const index = queryVector && indexReady() ? memoryIndex() : null;
  return { embedder, queryVector, fallbackReason, index };
}

export async function searchMemories(
  args: SearchArgs,
): Promise<{ results: SearchResult[]; mode: SearchMode; fallbackReason: string | null }> {
  if (usesPostgres()) return (await import("./search.pg")).searchMemoriesPg(args);
  const started = performance.now();
  const forced = args.mode ?? "auto";
  // The query's embedding is asked for first: the query's preparation and the keyword half run while the provider answers.
  const embedding = queryEmbedding(args);
  embedding.catch(() => {}); // a failure is thrown where it is awaited, below, not reported as unhandled meanwhile
  // Lets the provider's request go out before the CPU work below (none when no provider is asked).
  if (forced !== "keyword" && activeEmbedder()) await new Promise<void>((resolve) => setImmediate(resolve));

  const where = visibility(args);
  // The query's terms (weights, details, related words) for the candidates and their relevance.
  const prepared = prepareQuery(args.query, { semantic: localEmbedderEnabled() });
  const fts = forced === "vector" ? null : toFtsQuery(args.query);
  const expansion = fts && prepared.semantic ? expansionTerms(prepared).join(" ") : "";
  const expandedFts = expansion ? toFtsQuery(expansion) : null;
  const pool = Math.max(args.limit * 3, 30);

  const { bm25, ids } = await withSqlite((sqlite) => {
    // The in-memory keyword index (top-k that stops early, visibility inside);
    // FTS5 while it loads. The query's related words (query expansion) bring
    // their own few candidates, without a BM25 rank of their own.
    const filter = (index: NonNullable<ReturnType<typeof keywordIndex>>) => indexFilter(args, (id) => index.findAgentCode(id));
    const keyword = fts ? (keywordTopK(sqlite, args.query, pool, filter) ?? keywordCandidates(sqlite, fts, where, pool)) : [];
    const related =
      fts && expansion
        ? (keywordTopK(sqlite, expansion, pool / 2, filter, RELATED_TOUCHED) ?? keywordCandidates(sqlite, expandedFts!, where, pool / 2))
        : [];
    const bm25 = new Map(keyword.map((hit) => [hit.id, hit.rank]));
    return { bm25, ids: new Set([...bm25.keys(), ...related.map((hit) => hit.id)]) };
  });

  const { embedder, queryVector, fallbackReason, index } = await embedding;

  const { rows, cosines } = await withSqlite((sqlite) => {
    let cosines: Map<number, number> | null = null;
    if (index && queryVector) {
      const filter = indexFilter(args, (id) => index.findAgentCode(id));
      const estimated = indexEstimates(index, queryVector, { limit: pool, rescore: VECTOR_RESCORE, filter }).map((hit) => hit.id);
      // One read of the stored vectors: the estimates' to re-score them, the keyword candidates' to score them.
      cosines = exactCosines(sqlite, index, queryVector, [...new Set([...estimated, ...ids])]);
      for (const hit of bestOf(cosines, estimated, pool)) ids.add(hit.id);
    }
    const rows = hydrate(sqlite, [...ids], where, queryVector !== null && cosines === null);
    if (rows.length < bm25.size) {
      // Held by the keyword index but no longer visible to SQL (archived, expired, deleted elsewhere).
      const found = new Set(rows.map((row) => row.id));
      for (const id of bm25.keys()) if (!found.has(id)) hideIfGone(sqlite, id);
    }
    return { rows, cosines };
  });

  const mode: SearchMode = index && queryVector ? (fts ? "hybrid" : "vector") : "keyword";
  const scored = scoreRows(rows, { mode, prepared, queryVector, embedder, bm25, cosines });
  const results = scored.filter((result) => result.score > 0 && result.score >= (args.minScore ?? 0)).slice(0, args.limit);

  const durationMs = performance.now() - started;
  const now = Date.now();
  await writeTransaction((sqlite) => {
    const touch = prepare(sqlite, "UPDATE Memory SET accessCount = accessCount + 1, lastAccessedAt = ? WHERE id = ?");
    for (const result of results) touch.run(now, result.id);
    prepare(
      sqlite,
      `INSERT INTO MemoryRetrieval (kind, agentId, taskId, query, mode, embeddingUsed, fallbackReason, resultCount, topScore, threshold, results, durationMs, createdAt)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      args.record.kind,
      args.record.agentId,
      args.record.taskId ?? null,
      args.query.slice(0, 2000),
      mode,
      mode === "keyword" ? 0 : 1,
      fallbackReason,
      results.length,
      results[0]?.score ?? null,
      args.minScore ?? null,
      JSON.stringify(scored.slice(0, 20).map((result) => ({ id: result.id, score: result.score }))),
      durationMs,
      now,
    );
  });
  return { results, mode, fallbackReason };
}

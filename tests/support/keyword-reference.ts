// SQLite FTS5's exhaustive BM25 as the reference for the keyword index
// (lib/memory/keyword-index.ts): the same tokenizer and bm25() weights search.ts
// used before the index, over the same Zipf corpus in an in-memory database, and
// recall@10 of the index's answers against it. Used by
// lib/memory/keyword-index.test.ts and by `npm run bench:memory -- --index`.
import Database from "better-sqlite3";
import { KeywordIndex } from "../../lib/memory/keyword-index";
import { toFtsQuery } from "../../lib/memory/text";
import type { zipfCorpus } from "./zipf-corpus";

type Corpus = ReturnType<typeof zipfCorpus>;
export type Placement = { scope: string; agentId: string | null };

/** The first `count` memories of `corpus` in FTS5 and in a keyword index, each placed by `scopeOf`. */
export function keywordFixture(corpus: Corpus, count: number, scopeOf: (id: number) => Placement) {
  const sqlite = new Database(":memory:");
  sqlite.exec(`CREATE TABLE doc (id INTEGER PRIMARY KEY, scope TEXT, agentId TEXT, archived INTEGER DEFAULT 0);
    CREATE VIRTUAL TABLE memory_fts USING fts5(name, content, tokenize='porter unicode61 remove_diacritics 2');`);
  const index = new KeywordIndex();
  const insertDoc = sqlite.prepare("INSERT INTO doc (id, scope, agentId) VALUES (?, ?, ?)");
  const insertFts = sqlite.prepare("INSERT INTO memory_fts (rowid, name, content) VALUES (?, ?, ?)");
  const add = (id: number) => {
    const memory = corpus.memory(id);
    const { scope, agentId } = scopeOf(id);
    insertDoc.run(id, scope, agentId);
    insertFts.run(id, memory.name, memory.content);
    index.add({ id, ...memory, scope, agentId });
  };
  sqlite.transaction(() => {
    for (let id = 1; id <= count; id++) add(id);
  })();
  return { sqlite, index, add };
}

export type KeywordFixture = ReturnType<typeof keywordFixture>;

/**
 * FTS5's exhaustive BM25 ranking of the visible matches (higher is better): its
 * top `k`, the scores it gives `ids`, and how many memories it ranked.
 */
export function fts5(f: KeywordFixture, query: string, ids: number[], visibility = "1", params: unknown[] = []) {
  const where = `memory_fts MATCH ? AND doc.archived = 0 AND ${visibility}`;
  const from = "FROM memory_fts JOIN doc ON doc.id = memory_fts.rowid";
  const fts = toFtsQuery(query);
  const top = f.sqlite
    .prepare(`SELECT memory_fts.rowid AS id, -bm25(memory_fts, 2.0, 1.0) AS score ${from} WHERE ${where} ORDER BY score DESC LIMIT 10`)
    .all(fts, ...params) as { id: number; score: number }[];
  const scored = f.sqlite
    .prepare(
      `SELECT memory_fts.rowid AS id, -bm25(memory_fts, 2.0, 1.0) AS score ${from} WHERE ${where} AND doc.id IN (${ids.join(",") || 0})`,
    )
    .all(fts, ...params) as { id: number; score: number }[];
  const { matches } = f.sqlite.prepare(`SELECT count(*) AS matches ${from} WHERE ${where}`).get(fts, ...params) as { matches: number };
  return { top, scores: new Map(scored.map((hit) => [hit.id, hit.score])), matches };
}

/** Recall@10 with ties: a returned memory counts when FTS5 scores it at least as high as its own 10th best. */
export function recall(f: KeywordFixture, query: string, got: { id: number }[], visibility?: string, params?: unknown[]) {
  const reference = fts5(
    f,
    query,
    got.map((hit) => hit.id),
    visibility,
    params,
  );
  const wanted = reference.top.length;
  if (wanted === 0) return { hits: 0, wanted, matches: reference.matches };
  const kth = reference.top[wanted - 1]!.score;
  const hits = got.slice(0, 10).filter((hit) => (reference.scores.get(hit.id) ?? Number.NEGATIVE_INFINITY) >= kth - 1e-9).length;
  return { hits: Math.min(hits, wanted), wanted, matches: reference.matches };
}

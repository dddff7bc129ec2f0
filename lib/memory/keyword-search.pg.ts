// The PostgreSQL twin of keyword-search.ts: the same in-process keyword index
// (keyword-index.ts, BM25 top-k that stops early, so a query of common words
// costs about what a rare one does), loaded from "Memory" in pages and kept in
// step with every instance's writes through the change log (change-log.pg.ts):
// before each search it applies the changes committed since the last one it saw,
// re-reading each changed memory (added, edited, archived, superseded, deleted).
//
// Why not rank with PostgreSQL's full-text search alone: ts_rank_cd is computed
// for every memory that holds the query's words, and on a long-tailed corpus three
// common words are held by a tenth of the memories, so each search read and ranked
// thousands of rows (hundreds of milliseconds at 100k memories). Until the index
// is loaded, and for a query of stop words only, searches still use the tsvector
// column (search.pg.ts), as SQLite's use FTS5.
import "server-only";
import { pgSql, type Sql } from "@/lib/pg";
import { ChangeFollower } from "./change-log.pg";
import { type KeywordDoc, type KeywordFilter, KeywordIndex } from "./keyword-index";
import { isStopWord, queryStems, words } from "./text";

type State = { index: KeywordIndex; follower: ChangeFollower; loading: Promise<void> | null; ready: boolean };
const globalState = globalThis as unknown as { swarmdeckKeywordIndexPg?: State };

/** Rows per page while loading. */
const PAGE = 2000;

const ROWS = `SELECT "id", "agentId", "scope", "name", "content",
  ("archivedAt" IS NOT NULL OR "supersededById" IS NOT NULL) AS "hidden", "expiresAt" FROM "Memory"`;

type Row = Omit<KeywordDoc, "hidden"> & { hidden: boolean };

function state(): State {
  if (!globalState.swarmdeckKeywordIndexPg) {
    const index = new KeywordIndex();
    globalState.swarmdeckKeywordIndexPg = {
      index,
      follower: new ChangeFollower((sql, ids) => applyChanged(sql, index, ids)),
      loading: null,
      ready: false,
    };
  }
  return globalState.swarmdeckKeywordIndexPg;
}

/** Re-reads changed memories: each is indexed again as it is now, or forgotten when it is gone. */
async function applyChanged(sql: Sql, index: KeywordIndex, ids: number[]): Promise<void> {
  const rows = await sql.all<Row>(`${ROWS} WHERE "id" = ANY($1::int[])`, [ids]);
  const found = new Set<number>();
  for (const row of rows) {
    found.add(row.id);
    index.add(row);
  }
  for (const id of ids) if (!found.has(id)) index.remove(id);
}

/** Starts loading the index (idempotent); resolves when it is ready. */
export function ensureKeywordIndexPg(): Promise<void> {
  const s = state();
  s.loading ??= (async () => {
    const sql = pgSql();
    // Where the change log stands before the load: what changes while it runs is applied after.
    await s.follower.startFrom(sql);
    let after = 0;
    for (;;) {
      const rows = await sql.all<Row>(`${ROWS} WHERE "id" > $1 ORDER BY "id" LIMIT ${PAGE}`, [after]);
      for (const row of rows) {
        s.index.add(row);
        after = row.id;
      }
      if (rows.length < PAGE) break;
    }
    s.index.build();
    await s.follower.catchUp();
    s.ready = true;
  })().catch((error) => {
    console.error("[swarmdeck] keyword index load failed", error);
    globalState.swarmdeckKeywordIndexPg = undefined;
  });
  return s.loading;
}

/** Applies the other instances' memory changes now (the memory jobs call it every few seconds). */
export async function catchUpKeywordIndexPg(): Promise<void> {
  const s = globalState.swarmdeckKeywordIndexPg;
  if (s?.ready) await s.follower.catchUp();
}

/**
 * The best `limit` memories by BM25 for `query` that the filter lets through, as
 * FTS5-style ranks (negative; lower is better), with every change committed
 * before the call applied; or null when the index cannot answer (still loading,
 * or a query of stop words only): then the caller asks PostgreSQL.
 */
export async function keywordTopKPg(
  query: string,
  limit: number,
  filter: (index: KeywordIndex) => KeywordFilter,
): Promise<{ id: number; rank: number }[] | null> {
  const s = globalState.swarmdeckKeywordIndexPg;
  if (!s?.ready) {
    void ensureKeywordIndexPg();
    return null;
  }
  if (s.follower.stale) {
    // Not followed for half a day (the log may have been pruned past it): load it again.
    globalState.swarmdeckKeywordIndexPg = undefined;
    void ensureKeywordIndexPg();
    return null;
  }
  if (words(query).every(isStopWord)) return null;
  await s.follower.catchUp();
  return s.index.search(queryStems(query), limit, filter(s.index)).map((hit) => ({ id: hit.id, rank: -hit.score }));
}

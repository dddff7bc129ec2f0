// The process's one keyword index (keyword-index.ts) over the Memory table:
// loaded once at start-up in small pages (the connection lock is released
// between pages, so requests keep flowing; until it is ready searches use FTS5),
// then kept current without any hook on the write paths: before each search it
// reads the rows added since (ids only grow), whoever wrote them. Deletes and
// archiving reach it through dropFromIndexes (search-index.ts), and any memory a
// search finds it still holds but SQL no longer shows (archived, expired,
// deleted by another process) is hidden from it on the spot.
import "server-only";
import type Database from "better-sqlite3";
import { prepare, withSqlite } from "@/lib/db";
import { type KeywordDoc, type KeywordFilter, KeywordIndex } from "./keyword-index";
import { isStopWord, queryStems, words } from "./text";

type State = { index: KeywordIndex; loading: Promise<void> | null; ready: boolean; lastId: number };
const globalState = globalThis as unknown as { swarmdeckKeywordIndex?: State };

function state(): State {
  globalState.swarmdeckKeywordIndex ??= { index: new KeywordIndex(), loading: null, ready: false, lastId: 0 };
  return globalState.swarmdeckKeywordIndex;
}

/** Rows per page while loading: small, so a request waits at most a few milliseconds for the lock. */
const PAGE = 500;

const ROWS = `SELECT id, agentId, scope, name, content, (archivedAt IS NOT NULL OR supersededById IS NOT NULL) AS hidden, expiresAt
  FROM Memory WHERE id > ? ORDER BY id LIMIT ?`;

type Row = Omit<KeywordDoc, "hidden"> & { hidden: number };

function addRows(sqlite: Database.Database, s: State, limit: number): number {
  const rows = prepare(sqlite, ROWS).all(s.lastId, limit) as Row[];
  for (const row of rows) {
    s.index.add({ ...row, hidden: row.hidden === 1 });
    s.lastId = row.id;
  }
  return rows.length;
}

export function keywordIndex(): KeywordIndex | null {
  return globalState.swarmdeckKeywordIndex?.index ?? null;
}

/** Starts loading the index (idempotent); resolves when it is ready. */
export function ensureKeywordIndex(): Promise<void> {
  const s = state();
  s.loading ??= (async () => {
    for (;;) {
      const count = await withSqlite((sqlite) => addRows(sqlite, s, PAGE));
      if (count < PAGE) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    await withSqlite((sqlite) => {
      addRows(sqlite, s, 1_000_000);
      s.index.build();
    });
    s.ready = true;
  })().catch((error) => {
    console.error("[swarmdeck] keyword index load failed", error);
    globalState.swarmdeckKeywordIndex = undefined;
  });
  return s.loading;
}

/**
 * The best `limit` memories by BM25 for `query` that the filter lets through, as
 * FTS5-style ranks (negative; lower is better), or null when the index cannot
 * answer (still loading, or a query of stop words only, which only FTS5 indexes).
 * `budget`: postings read at most (KeywordIndex.search; its default otherwise).
 * Runs inside the caller's withSqlite block.
 */
export function keywordTopK(
  sqlite: Database.Database,
  query: string,
  limit: number,
  filter: (index: KeywordIndex) => KeywordFilter,
  budget?: number,
): { id: number; rank: number }[] | null {
  const s = globalState.swarmdeckKeywordIndex;
  if (!s?.ready) {
    void ensureKeywordIndex();
    return null;
  }
  if (words(query).every(isStopWord)) return null;
  while (addRows(sqlite, s, 10_000) === 10_000) {}
  return s.index.search(queryStems(query), limit, filter(s.index), { budget }).map((hit) => ({ id: hit.id, rank: -hit.score }));
}

// The PostgreSQL twin of memory-metrics.ts: the same counts, the UTC day of a
// timestamptz by to_char(... AT TIME ZONE 'UTC') instead of SQLite's strftime on
// ms, and an explicit ORDER BY (SQLite's GROUP BY hands groups back sorted by
// key, NULL first, bytewise; PostgreSQL's comes in no order) so series that tie
// are listed in the same order on both stores.
import "server-only";
import { injectThreshold } from "@/lib/memory/task-memories";
import { pgSql } from "@/lib/pg";
import { type BaseRow, type CountRow, memoryMetricsFrom, type RetrievalRow } from "./memory-metrics";
import type { DayRange } from "./range";
import { agentNamesPg } from "./task-metrics.pg";

const DAY = `to_char("createdAt" AT TIME ZONE 'UTC', 'YYYY-MM-DD')`;
const byKey = (column: string) => `"${column}" COLLATE "C" NULLS FIRST`;

export async function getMemoryMetricsPg({ range, agentId }: { range: DayRange; agentId?: string }) {
  const threshold = injectThreshold();
  const sql = pgSql();
  const where = agentId ? `AND "agentId" = $3` : "";
  const params: unknown[] = [new Date(range.startMs), new Date(range.endMs), ...(agentId ? [agentId] : [])];
  // $2 is not used by the "before the range" counts; a no-op comparison keeps the parameters numbered alike.
  const before = `"createdAt" < $1 AND $2::timestamptz IS NOT NULL`;
  const [names, agentBase, agentDaily, sourceBase, sourceDaily, retrievalRows] = await Promise.all([
    agentNamesPg(sql),
    sql.all<BaseRow>(
      `SELECT "agentId" AS "key", count(*) AS "n" FROM "Memory" WHERE ${before} ${where} GROUP BY "agentId" ORDER BY ${byKey("agentId")}`,
      params,
    ),
    sql.all<CountRow>(
      `SELECT "agentId" AS "key", ${DAY} AS "day", count(*) AS "n" FROM "Memory" WHERE "createdAt" >= $1 AND "createdAt" < $2 ${where}
       GROUP BY "agentId", ${DAY} ORDER BY ${byKey("agentId")}, "day"`,
      params,
    ),
    sql.all<BaseRow>(
      `SELECT "source" AS "key", count(*) AS "n" FROM "Memory" WHERE ${before} ${where} GROUP BY "source" ORDER BY ${byKey("source")}`,
      params,
    ),
    sql.all<CountRow>(
      `SELECT "source" AS "key", ${DAY} AS "day", count(*) AS "n" FROM "Memory" WHERE "createdAt" >= $1 AND "createdAt" < $2 ${where}
       GROUP BY "source", ${DAY} ORDER BY ${byKey("source")}, "day"`,
      params,
    ),
    sql.all<RetrievalRow>(
      `SELECT ${DAY} AS "day", "mode", "embeddingUsed", "resultCount", "topScore", "threshold" FROM "MemoryRetrieval"
       WHERE "createdAt" >= $1 AND "createdAt" < $2 ${where}`,
      params,
    ),
  ]);
  return memoryMetricsFrom(range, names, { agentBase, agentDaily, sourceBase, sourceDaily, retrievalRows }, threshold);
}

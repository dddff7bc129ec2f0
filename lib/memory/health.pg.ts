// The PostgreSQL twin of health.ts: the same retrieval-health numbers, read
// with PostgreSQL's SQL (day buckets from the timestamptz columns, FILTER for the
// per-kind counts, the boolean "embeddingUsed").
import "server-only";
import type { MemoryHealth } from "@/lib/contracts/memory";
import { pgSql } from "@/lib/pg";
import { healthReport, healthSince } from "./health";
import { injectThreshold } from "./task-memories";

const DAY = 86_400_000;
/** Milliseconds since the epoch of a timestamptz column. */
const ms = (column: string) => `(extract(epoch FROM ${column}) * 1000)`;

export async function memoryHealthPg(args: { days: number }): Promise<MemoryHealth> {
  const threshold = injectThreshold();
  const since = healthSince(args.days);
  const sinceDate = new Date(since);
  const sql = pgSql();
  const [totalsRows, flaggedArchived, days, fallbackReasons, injections, buckets, judged, recentFailures] = await Promise.all([
    sql.all<{ status: string; n: number }>(
      'SELECT "embeddingStatus" AS "status", COUNT(*) AS "n" FROM "Memory" WHERE "archivedAt" IS NULL GROUP BY "embeddingStatus"',
    ),
    sql.get<{ flagged: number; archived: number }>(
      `SELECT COUNT(*) FILTER (WHERE "duplicateOfId" IS NOT NULL AND "archivedAt" IS NULL) AS "flagged",
         COUNT(*) FILTER (WHERE "archivedAt" IS NOT NULL) AS "archived" FROM "Memory"`,
    ),
    sql.all<{ day: number; searches: number; withEmbeddings: number; keywordOnly: number; injections: number }>(
      `SELECT floor(${ms('"createdAt"')} / ${DAY})::bigint AS "day",
         COUNT(*) FILTER (WHERE "kind" = 'search') AS "searches", COUNT(*) FILTER (WHERE "embeddingUsed") AS "withEmbeddings",
         COUNT(*) FILTER (WHERE NOT "embeddingUsed") AS "keywordOnly", COUNT(*) FILTER (WHERE "kind" = 'injection') AS "injections"
       FROM "MemoryRetrieval" WHERE "createdAt" >= $1 GROUP BY 1 ORDER BY 1`,
      [sinceDate],
    ),
    sql.all<{ reason: string; count: number }>(
      `SELECT "fallbackReason" AS "reason", COUNT(*) AS "count" FROM "MemoryRetrieval"
       WHERE "createdAt" >= $1 AND "fallbackReason" IS NOT NULL GROUP BY "fallbackReason" ORDER BY "count" DESC, "reason" LIMIT 10`,
      [sinceDate],
    ),
    sql.get<{ tasks: number; injected: number }>(
      `SELECT COUNT(DISTINCT "taskId") AS "tasks", COALESCE(SUM("resultCount"), 0) AS "injected" FROM "MemoryRetrieval"
       WHERE "createdAt" >= $1 AND "kind" = 'injection'`,
      [sinceDate],
    ),
    sql.all<{ bucket: number; n: number }>(
      `SELECT LEAST(trunc("topScore" * 10)::int, 9) AS "bucket", COUNT(*) AS "n" FROM "MemoryRetrieval"
       WHERE "createdAt" >= $1 AND "topScore" IS NOT NULL GROUP BY 1`,
      [sinceDate],
    ),
    sql.all<{ topScore: number | null; threshold: number | null }>(
      'SELECT "topScore", "threshold" FROM "MemoryRetrieval" WHERE "createdAt" >= $1',
      [sinceDate],
    ),
    sql.all<MemoryHealth["recentFailures"][number]>(
      `SELECT "id", "name", "embeddingError" AS "error", "embeddingAttempts" AS "attempts" FROM "Memory"
       WHERE "embeddingStatus" = 'failed' ORDER BY "updatedAt" DESC, "id" DESC LIMIT 10`,
    ),
  ]);
  const counts = {
    totalsRows,
    flagged: flaggedArchived?.flagged ?? 0,
    archived: flaggedArchived?.archived ?? 0,
    days,
    fallbackReasons,
    injections: { tasks: injections?.tasks ?? 0, injected: injections?.injected ?? 0 },
    buckets,
    judged,
    recentFailures,
  };
  return healthReport(args, since, threshold, counts);
}

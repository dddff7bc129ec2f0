// Retrieval health (the Memory page's panel): how searches and injections were
// answered over the last days, embedding failures, and top scores against the
// injection threshold.
import "server-only";
import type { MemoryHealth } from "@/lib/contracts/memory";
import { prepare, usesPostgres, withSqlite } from "@/lib/db";
import { activeEmbedder } from "./embedders";
import { providerConfig } from "./provider";
import { isRetrievalHit } from "./scoring";
import { injectThreshold } from "./task-memories";

const DAY = 86_400_000;

/** The first instant (a UTC midnight) of a report over the last `days` days. */
export function healthSince(days: number): number {
  return Math.floor(Date.now() / DAY) * DAY - (days - 1) * DAY;
}

/** What the store counted for a report (healthReport). */
export type HealthCounts = {
  totalsRows: { status: string; n: number }[];
  flagged: number;
  archived: number;
  days: { day: number; searches: number; withEmbeddings: number; keywordOnly: number; injections: number }[];
  fallbackReasons: MemoryHealth["fallbackReasons"];
  injections: { tasks: number; injected: number };
  buckets: { bucket: number; n: number }[];
  judged: { topScore: number | null; threshold: number | null }[];
  recentFailures: MemoryHealth["recentFailures"];
};

/** The report from the store's counts (both stores). */
export function healthReport(args: { days: number }, since: number, threshold: number, counts: HealthCounts): MemoryHealth {
  const config = providerConfig();
  const embedder = activeEmbedder();
  const { totalsRows, injections, judged } = counts;
  const byStatus = Object.fromEntries(totalsRows.map((row) => [row.status, row.n]));
  const byDay = new Map(counts.days.map((row) => [row.day, row]));
  const perDay: MemoryHealth["perDay"] = [];
  for (let i = 0; i < args.days; i++) {
    const day = since / DAY + i;
    const row = byDay.get(day);
    perDay.push({
      day: new Date(day * DAY).toISOString().slice(0, 10),
      searches: row?.searches ?? 0,
      withEmbeddings: row?.withEmbeddings ?? 0,
      keywordOnly: row?.keywordOnly ?? 0,
      injections: row?.injections ?? 0,
    });
  }
  const bucketCounts = new Map(counts.buckets.map((row) => [row.bucket, row.n]));
  const scoreBuckets = Array.from({ length: 10 }, (_, i) => ({
    from: i / 10,
    to: (i + 1) / 10,
    count: bucketCounts.get(i) ?? 0,
    aboveThreshold: i / 10 >= threshold - 1e-9,
  }));
  const hits = judged.filter((row) => isRetrievalHit(row, threshold)).length;
  return {
    days: args.days,
    threshold,
    provider: { configured: config !== null, embeddingModel: config?.embeddingModel ?? null, summaryModel: config?.summaryModel ?? null },
    embedder: { kind: embedder?.kind ?? "none", model: embedder?.model ?? null },
    totals: {
      memories: totalsRows.reduce((sum, row) => sum + row.n, 0),
      embedded: byStatus.done ?? 0,
      pending: byStatus.pending ?? 0,
      failed: byStatus.failed ?? 0,
      duplicatesFlagged: counts.flagged,
      archived: counts.archived,
    },
    perDay,
    fallbackReasons: counts.fallbackReasons,
    injectionsPerTask: {
      tasks: injections.tasks,
      injected: injections.injected,
      average: injections.tasks > 0 ? Math.round((injections.injected / injections.tasks) * 100) / 100 : 0,
    },
    scoreBuckets,
    hitRate: judged.length ? hits / judged.length : null,
    recentFailures: counts.recentFailures,
  };
}

export async function memoryHealth(args: { days: number }): Promise<MemoryHealth> {
  if (usesPostgres()) return (await import("./health.pg")).memoryHealthPg(args);
  const threshold = injectThreshold();
  const since = healthSince(args.days);
  return withSqlite((sqlite) => {
    const totalsRows = prepare(
      sqlite,
      "SELECT embeddingStatus AS status, COUNT(*) AS n FROM Memory WHERE archivedAt IS NULL GROUP BY embeddingStatus",
    ).all() as {
      status: string;
      n: number;
    }[];
    const flagged = prepare(sqlite, "SELECT COUNT(*) AS n FROM Memory WHERE duplicateOfId IS NOT NULL AND archivedAt IS NULL").get() as {
      n: number;
    };
    const archived = prepare(sqlite, "SELECT COUNT(*) AS n FROM Memory WHERE archivedAt IS NOT NULL").get() as { n: number };

    const days = prepare(
      sqlite,
      `SELECT (createdAt / ${DAY}) AS day,
         SUM(kind = 'search') AS searches, SUM(embeddingUsed = 1) AS withEmbeddings,
         SUM(embeddingUsed = 0) AS keywordOnly, SUM(kind = 'injection') AS injections
       FROM MemoryRetrieval WHERE createdAt >= ? GROUP BY day ORDER BY day`,
    ).all(since) as HealthCounts["days"];
    const fallbackReasons = prepare(
      sqlite,
      `SELECT fallbackReason AS reason, COUNT(*) AS count FROM MemoryRetrieval
       WHERE createdAt >= ? AND fallbackReason IS NOT NULL GROUP BY fallbackReason ORDER BY count DESC LIMIT 10`,
    ).all(since) as { reason: string; count: number }[];
    const injections = prepare(
      sqlite,
      `SELECT COUNT(DISTINCT taskId) AS tasks, COALESCE(SUM(resultCount), 0) AS injected FROM MemoryRetrieval
       WHERE createdAt >= ? AND kind = 'injection'`,
    ).get(since) as { tasks: number; injected: number };
    const buckets = prepare(
      sqlite,
      `SELECT MIN(CAST(topScore * 10 AS INTEGER), 9) AS bucket, COUNT(*) AS n FROM MemoryRetrieval
       WHERE createdAt >= ? AND topScore IS NOT NULL GROUP BY bucket`,
    ).all(since) as { bucket: number; n: number }[];
    const judged = prepare(sqlite, "SELECT topScore, threshold FROM MemoryRetrieval WHERE createdAt >= ?").all(since) as {
      topScore: number | null;
      threshold: number | null;
    }[];
    const recentFailures = prepare(
      sqlite,
      `SELECT id, name, embeddingError AS error, embeddingAttempts AS attempts FROM Memory
       WHERE embeddingStatus = 'failed' ORDER BY updatedAt DESC LIMIT 10`,
    ).all() as MemoryHealth["recentFailures"];
    const counts = {
      totalsRows,
      flagged: flagged.n,
      archived: archived.n,
      days,
      fallbackReasons,
      injections,
      buckets,
      judged,
      recentFailures,
    };
    return healthReport(args, since, threshold, counts);
  });
}

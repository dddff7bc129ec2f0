// Memory growth (memories stored per agent and per source, cumulative) and
// retrieval health (how searches and prompt injections were answered).
import "server-only";
import { prepare, usesPostgres, withSqlite } from "@/lib/db";
import { isRetrievalHit } from "@/lib/memory/scoring";
import { injectThreshold } from "@/lib/memory/task-memories";
import type { DayRange } from "./range";
import { agentNames, rate } from "./task-metrics";

export type CountRow = { key: string | null; day: string; n: number };
export type BaseRow = { key: string | null; n: number };

function cumulative(range: DayRange, base: BaseRow[], daily: CountRow[], label: (key: string | null) => string) {
  const series = new Map<string, { key: string; label: string; start: number; added: Map<string, number> }>();
  const entry = (key: string | null) => {
    const id = key ?? "";
    let found = series.get(id);
    if (!found) {
      found = { key: id, label: label(key), start: 0, added: new Map() };
      series.set(id, found);
    }
    return found;
  };
  for (const row of base) entry(row.key).start += row.n;
  for (const row of daily) {
    const found = entry(row.key);
    found.added.set(row.day, (found.added.get(row.day) ?? 0) + row.n);
  }
  return [...series.values()]
    .map((item) => {
      let total = item.start;
      const points = range.days.map((day) => {
        const added = item.added.get(day) ?? 0;
        total += added;
        return { day, added, total };
      });
      return { key: item.key, label: item.label, start: item.start, total, points };
    })
    .sort((a, b) => b.total - a.total);
}

/**
 * GET /api/v1/metrics/memory: memories (chunks) per agent and per source, the count
 * before the range and the running total each day; swarm-scoped memories have no
 * agent. Plus retrieval health over the range.
 */
export async function getMemoryMetrics({ range, agentId }: { range: DayRange; agentId?: string }) {
  if (usesPostgres()) return (await import("./memory-metrics.pg")).getMemoryMetricsPg({ range, agentId });
  const threshold = injectThreshold();
  return withSqlite((sqlite) => {
    const names = agentNames(sqlite);
    const where = agentId ? "AND agentId = @agentId" : "";
    const params = { start: range.startMs, end: range.endMs, agentId };
    const day = "strftime('%Y-%m-%d', createdAt / 1000, 'unixepoch')";
    const query = (sql: string) => prepare(sqlite, sql).all(agentId ? params : { start: params.start, end: params.end });
    const agentBase = query(
      `SELECT agentId AS key, count(*) AS n FROM Memory WHERE createdAt < @start ${where} GROUP BY agentId`,
    ) as BaseRow[];
    const agentDaily = query(
      `SELECT agentId AS key, ${day} AS day, count(*) AS n FROM Memory WHERE createdAt >= @start AND createdAt < @end ${where} GROUP BY agentId, day`,
    ) as CountRow[];
    const sourceBase = query(
      `SELECT source AS key, count(*) AS n FROM Memory WHERE createdAt < @start ${where} GROUP BY source`,
    ) as BaseRow[];
    const sourceDaily = query(
      `SELECT source AS key, ${day} AS day, count(*) AS n FROM Memory WHERE createdAt >= @start AND createdAt < @end ${where} GROUP BY source, day`,
    ) as CountRow[];

    const retrievalRows = query(
      `SELECT ${day} AS day, mode, embeddingUsed, resultCount, topScore, threshold FROM MemoryRetrieval
       WHERE createdAt >= @start AND createdAt < @end ${where}`,
    ) as RetrievalRow[];
    return memoryMetricsFrom(range, names, { agentBase, agentDaily, sourceBase, sourceDaily, retrievalRows }, threshold);
  });
}

export type RetrievalRow = {
  day: string;
  mode: string;
  embeddingUsed: number | boolean;
  resultCount: number;
  topScore: number | null;
  threshold: number | null;
};

export type MemoryRows = {
  agentBase: BaseRow[];
  agentDaily: CountRow[];
  sourceBase: BaseRow[];
  sourceDaily: CountRow[];
  retrievalRows: RetrievalRow[];
};

/** The answer from the counted rows (shared with memory-metrics.pg.ts). */
export function memoryMetricsFrom(range: DayRange, names: Map<string, string>, rows: MemoryRows, threshold: number) {
  const { agentBase, agentDaily, sourceBase, sourceDaily, retrievalRows } = rows;
  const perDay = new Map(range.days.map((d) => [d, { day: d, count: 0, hits: 0, misses: 0, empty: 0 }]));
  const byMode: Record<string, number> = {};
  let embeddingUsed = 0;
  let empty = 0;
  let judged = 0;
  let hits = 0;
  let scoreSum = 0;
  let scored = 0;
  for (const row of retrievalRows) {
    const point = perDay.get(row.day);
    byMode[row.mode] = (byMode[row.mode] ?? 0) + 1;
    if (row.embeddingUsed) embeddingUsed += 1;
    if (row.resultCount === 0) {
      empty += 1;
      if (point) point.empty += 1;
    }
    if (row.topScore !== null) {
      scoreSum += row.topScore;
      scored += 1;
    }
    judged += 1;
    const hit = isRetrievalHit(row, threshold);
    if (hit) hits += 1;
    if (point) point[hit ? "hits" : "misses"] += 1;
    if (point) point.count += 1;
  }
  return {
    range: { from: range.from, to: range.to, days: range.days.length },
    byAgent: cumulative(range, agentBase, agentDaily, (key) => (key ? (names.get(key) ?? "(deleted agent)") : "(swarm)")),
    bySource: cumulative(range, sourceBase, sourceDaily, (key) => key ?? "unknown"),
    retrieval: {
      total: retrievalRows.length,
      byMode,
      embeddingUsedRate: rate(embeddingUsed, retrievalRows.length),
      emptyRate: rate(empty, retrievalRows.length),
      hitRate: rate(hits, judged),
      meanTopScore: scored ? scoreSum / scored : null,
      series: [...perDay.values()],
    },
  };
}

// The PostgreSQL twin of task-metrics.ts: the same reads of TaskDailyRollup, on
// one REPEATABLE READ snapshot so counts and histograms agree (SQLite: one read
// transaction). What differs: the histogram text comes back with its row (one
// query instead of one per row), a swarm day's row is summed here from the
// agents' rows of that day, and the parsed histograms are cached per row keyed by
// durationCount as in task-metrics.ts.
import "server-only";
import type { MetricsOverview } from "@/lib/contracts/metrics";
import { pgTransaction, type Sql } from "@/lib/pg";
import { addInto, emptyHistogram, parseHistogram } from "./duration-buckets";
import type { DayRange } from "./range";
import { emptyTotals, overviewFromTotals, type RollupRow, SWARM, summarize, type Totals } from "./task-metrics";

/** A rollup row with its duration histogram. */
export type HistRow = RollupRow & { hist: number[] };

type StoredRow = RollupRow & { durationHist: string | null };

const cache = new Map<string, { count: number; hist: number[] }>();
const CACHE_LIMIT = 100_000;

function histogramOf(row: StoredRow): number[] {
  if (row.durationCount <= 0) return emptyHistogram();
  const key = `${row.day}|${row.agentId}`;
  const cached = cache.get(key);
  if (cached && cached.count === row.durationCount) return cached.hist;
  const hist = parseHistogram(row.durationHist);
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, { count: row.durationCount, hist });
  return hist;
}

const COLUMNS = `"day", "agentId", "created", "completed", "failed", "cancelled", "durationSumMs", "durationCount",
  CASE WHEN "durationCount" > 0 THEN "durationHist" END AS "durationHist"`;

/** Rows per day and agent (or, with `swarmDays`, one summed row per day), as readRollups of task-metrics.ts. */
export async function readRollupsPg(sql: Sql, range: DayRange, agentId?: string, swarmDays = false): Promise<HistRow[]> {
  const stored = agentId
    ? await sql.all<StoredRow>(`SELECT ${COLUMNS} FROM "TaskDailyRollup" WHERE "day" >= $1 AND "day" <= $2 AND "agentId" = $3`, [
        range.from,
        range.to,
        agentId,
      ])
    : await sql.all<StoredRow>(`SELECT ${COLUMNS} FROM "TaskDailyRollup" WHERE "day" >= $1 AND "day" <= $2 ORDER BY "day", "agentId"`, [
        range.from,
        range.to,
      ]);
  const rows: HistRow[] = stored.map(({ durationHist, ...row }) => ({ ...row, hist: histogramOf({ ...row, durationHist }) }));
  if (!swarmDays || agentId) return rows;
  const byDay = new Map<string, HistRow>();
  for (const row of rows) {
    const day = byDay.get(row.day) ?? {
      day: row.day,
      agentId: SWARM,
      created: 0,
      completed: 0,
      failed: 0,
      cancelled: 0,
      durationSumMs: 0,
      durationCount: 0,
      hist: emptyHistogram(),
    };
    day.created += row.created;
    day.completed += row.completed;
    day.failed += row.failed;
    day.cancelled += row.cancelled;
    day.durationSumMs += row.durationSumMs;
    day.durationCount += row.durationCount;
    if (row.durationCount > 0) addInto(day.hist, row.hist);
    byDay.set(row.day, day);
  }
  return [...byDay.values()];
}

/** addRow of task-metrics.ts, the histogram taken from the row. */
export function addRowPg(totals: Totals, row: HistRow): Totals {
  totals.created += row.created;
  totals.completed += row.completed;
  totals.failed += row.failed;
  totals.cancelled += row.cancelled;
  totals.durationSumMs += row.durationSumMs;
  totals.durationCount += row.durationCount;
  if (row.durationCount > 0) addInto(totals.hist, row.hist);
  return totals;
}

/** Runs reads on one snapshot (a read-only REPEATABLE READ transaction). */
export function snapshotPg<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
  return pgTransaction(async (sql) => {
    await sql.run("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY");
    return fn(sql);
  });
}

/** Agents by id, named by name (agentNames of task-metrics.ts). */
export async function agentNamesPg(sql: Sql): Promise<Map<string, string>> {
  const rows = await sql.all<{ id: string; name: string }>('SELECT "id", "name" FROM "Agent"');
  return new Map(rows.map((row) => [row.id, row.name]));
}

export async function getOverviewPg({ range, agentId }: { range: DayRange; agentId?: string }): Promise<MetricsOverview> {
  return snapshotPg(async (sql) => {
    const totals = emptyTotals();
    for (const row of await readRollupsPg(sql, range, agentId, true)) addRowPg(totals, row);
    return overviewFromTotals(totals, range, agentId);
  });
}

function points(range: DayRange, rows: HistRow[]) {
  const byDay = new Map<string, Totals>();
  for (const row of rows) byDay.set(row.day, addRowPg(byDay.get(row.day) ?? emptyTotals(), row));
  return range.days.map((day) => {
    const summary = summarize(byDay.get(day) ?? emptyTotals());
    return { day, ...summary.tasks, medianMs: summary.durations.medianMs, p90Ms: summary.durations.p90Ms };
  });
}

export function getTaskSeriesPg({ range, agentId }: { range: DayRange; agentId?: string }) {
  return snapshotPg(async (sql) => {
    const rows = await readRollupsPg(sql, range, agentId);
    const names = await agentNamesPg(sql);
    const byAgent = new Map<string, HistRow[]>();
    for (const row of rows) byAgent.set(row.agentId, [...(byAgent.get(row.agentId) ?? []), row]);
    const agents = [...byAgent.entries()]
      .map(([id, agentRows]) => ({
        agentId: id || null,
        agentName: id ? (names.get(id) ?? "(deleted agent)") : "(no agent)",
        points: points(range, agentRows),
      }))
      .sort((a, b) => a.agentName.localeCompare(b.agentName));
    const swarm = agentId ? rows : await readRollupsPg(sql, range, undefined, true);
    return { range: { from: range.from, to: range.to, days: range.days.length }, swarm: points(range, swarm), agents };
  });
}

// The PostgreSQL twin of task-metrics.ts: the same reads of TaskDailyRollup, on
// one REPEATABLE READ snapshot so counts and histograms agree (SQLite: one read
// transaction). What differs: the histogram text comes back with its row (one
// query instead of one per row), a swarm day's row is summed here from the
// agents' rows of that day. The parsed histograms are cached per row keyed by
// durationCount, in the cache of task-metrics.ts (cachedHistogram).
import "server-only";
import type { MetricsOverview } from "@/lib/contracts/metrics";
import { pgTransaction, type Sql } from "@/lib/pg";
import { emptyHistogram, parseHistogram } from "./duration-buckets";
import type { DayRange } from "./range";
import {
  addCounts,
  cachedHistogram,
  emptyTotals,
  overviewFromTotals,
  type RollupRow,
  SWARM,
  type Totals,
  taskSeries,
} from "./task-metrics";

/** A rollup row with its duration histogram. */
export type HistRow = RollupRow & { hist: number[] };

type StoredRow = RollupRow & { durationHist: string | null };

function histogramOf(row: StoredRow): number[] {
  if (row.durationCount <= 0) return emptyHistogram();
  return cachedHistogram(row, () => parseHistogram(row.durationHist));
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
    const day = byDay.get(row.day) ?? { day: row.day, agentId: SWARM, ...emptyTotals() };
    addRowPg(day, row);
    byDay.set(row.day, day);
  }
  return [...byDay.values()];
}

/** addRow of task-metrics.ts, the histogram taken from the row. */
export function addRowPg(totals: Totals, row: HistRow): Totals {
  return addCounts(totals, row, () => row.hist);
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

export function getTaskSeriesPg({ range, agentId }: { range: DayRange; agentId?: string }) {
  return snapshotPg(async (sql) => {
    const rows = await readRollupsPg(sql, range, agentId);
    const names = await agentNamesPg(sql);
    const swarm = agentId ? rows : await readRollupsPg(sql, range, undefined, true);
    return taskSeries(range, rows, swarm, names, addRowPg);
  });
}

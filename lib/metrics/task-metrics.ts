// Task metrics read from the daily rollups only (never from Task rows), so an
// overview costs the same at a thousand tasks as at a million. Histograms are
// parsed once and cached per rollup row (and per day, swarm-wide), keyed by the
// row's durationCount: a histogram only changes when that count grows.
import "server-only";
import type Database from "better-sqlite3";
import { DURATION_BUCKET_ERROR_PCT, type MetricsOverview } from "@/lib/contracts/metrics";
import { prepare, usesPostgres, withSqlite } from "@/lib/db";
import { addInto, emptyHistogram, parseHistogram, quantile } from "./duration-buckets";
import type { DayRange } from "./range";

type Counts = {
  created: number;
  completed: number;
  failed: number;
  cancelled: number;
  durationSumMs: number;
  durationCount: number;
};

export type RollupRow = {
  day: string;
  /** "" for tasks without an agent; "*" for a whole day of the swarm. */
  agentId: string;
} & Counts;

export type Totals = Counts & { hist: number[] };

const COLUMNS = "day, agentId, created, completed, failed, cancelled, durationSumMs, durationCount";
const SUMS =
  "sum(created) AS created, sum(completed) AS completed, sum(failed) AS failed, sum(cancelled) AS cancelled, sum(durationSumMs) AS durationSumMs, sum(durationCount) AS durationCount";
export const SWARM = "*";

/** Rows per day and agent (or, with `swarmDays`, one summed row per day). */
export function readRollups(sqlite: Database.Database, range: DayRange, agentId?: string, swarmDays = false): RollupRow[] {
  if (agentId) {
    return prepare(sqlite, `SELECT ${COLUMNS} FROM TaskDailyRollup WHERE day >= ? AND day <= ? AND agentId = ?`).all(
      range.from,
      range.to,
      agentId,
    ) as RollupRow[];
  }
  if (swarmDays) {
    return prepare(sqlite, `SELECT day, '${SWARM}' AS agentId, ${SUMS} FROM TaskDailyRollup WHERE day >= ? AND day <= ? GROUP BY day`).all(
      range.from,
      range.to,
    ) as RollupRow[];
  }
  return prepare(sqlite, `SELECT ${COLUMNS} FROM TaskDailyRollup WHERE day >= ? AND day <= ?`).all(range.from, range.to) as RollupRow[];
}

const cache = new Map<string, { count: number; hist: number[] }>();
const CACHE_LIMIT = 100_000;

/** A rollup row's parsed histogram from the cache when its count has not moved; otherwise `read` (both stores). */
export function cachedHistogram(row: Pick<RollupRow, "day" | "agentId" | "durationCount">, read: () => number[]): number[] {
  const key = `${row.day}|${row.agentId}`;
  const cached = cache.get(key);
  if (cached && cached.count === row.durationCount) return cached.hist;
  const hist = read();
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, { count: row.durationCount, hist });
  return hist;
}

/** The duration histogram of a rollup row (or of a swarm day), from the cache when its count has not moved. */
export function histogramOf(sqlite: Database.Database, row: Pick<RollupRow, "day" | "agentId" | "durationCount">): number[] {
  return cachedHistogram(row, () => {
    if (row.agentId === SWARM) {
      const hist = emptyHistogram();
      const texts = prepare(sqlite, "SELECT durationHist FROM TaskDailyRollup WHERE day = ? AND durationCount > 0").all(row.day) as Array<{
        durationHist: string;
      }>;
      for (const { durationHist } of texts) addInto(hist, parseHistogram(durationHist));
      return hist;
    }
    const found = prepare(sqlite, "SELECT durationHist FROM TaskDailyRollup WHERE day = ? AND agentId = ?").get(row.day, row.agentId) as
      | { durationHist: string }
      | undefined;
    return parseHistogram(found?.durationHist);
  });
}

/** Runs reads on one snapshot, so counts and histograms agree. */
export function snapshot<T>(sqlite: Database.Database, fn: () => T): T {
  return sqlite.inTransaction ? fn() : sqlite.transaction(fn)();
}

export function emptyTotals(): Totals {
  return { created: 0, completed: 0, failed: 0, cancelled: 0, durationSumMs: 0, durationCount: 0, hist: emptyHistogram() };
}

/** Adds a row's counts to the totals; with `hist`, its durations' histogram too (read only for a row with durations). Both stores. */
export function addCounts(totals: Totals, row: Counts, hist?: () => number[]): Totals {
  totals.created += row.created;
  totals.completed += row.completed;
  totals.failed += row.failed;
  totals.cancelled += row.cancelled;
  totals.durationSumMs += row.durationSumMs;
  totals.durationCount += row.durationCount;
  if (hist && row.durationCount > 0) addInto(totals.hist, hist());
  return totals;
}

/** Adds a row to the totals; with `sqlite`, its durations' histogram too. */
export function addRow(totals: Totals, row: RollupRow, sqlite?: Database.Database): Totals {
  return addCounts(totals, row, sqlite && (() => histogramOf(sqlite, row)));
}

export function rate(part: number, whole: number): number | null {
  return whole > 0 ? part / whole : null;
}

export function summarize(totals: Totals) {
  const decided = totals.completed + totals.failed;
  return {
    tasks: {
      created: totals.created,
      completed: totals.completed,
      failed: totals.failed,
      cancelled: totals.cancelled,
      completionRate: rate(totals.completed, decided),
      failureRate: rate(totals.failed, decided),
    },
    durations: {
      count: totals.durationCount,
      meanMs: totals.durationCount > 0 ? totals.durationSumMs / totals.durationCount : null,
      medianMs: quantile(totals.hist, 0.5),
      p90Ms: quantile(totals.hist, 0.9),
    },
  };
}

/** Counts, rates, durations and throughput over a range (GET /api/v1/metrics/overview). */
export function overviewFrom(sqlite: Database.Database, rows: RollupRow[], range: DayRange, agentId?: string): MetricsOverview {
  const totals = emptyTotals();
  for (const row of rows) addRow(totals, row, sqlite);
  return overviewFromTotals(totals, range, agentId);
}

/** The overview of summed totals (shared with task-metrics.pg.ts). */
export function overviewFromTotals(totals: Totals, range: DayRange, agentId?: string): MetricsOverview {
  const summary = summarize(totals);
  return {
    range: { from: range.from, to: range.to, days: range.days.length },
    agentId: agentId ?? null,
    tasks: summary.tasks,
    durations: { ...summary.durations, bucketErrorPct: DURATION_BUCKET_ERROR_PCT },
    throughput: { completedPerDay: totals.completed / range.days.length },
  };
}

export async function getOverview({ range, agentId }: { range: DayRange; agentId?: string }): Promise<MetricsOverview> {
  if (usesPostgres()) return (await import("./task-metrics.pg")).getOverviewPg({ range, agentId });
  return withSqlite((sqlite) => snapshot(sqlite, () => overviewFrom(sqlite, readRollups(sqlite, range, agentId, true), range, agentId)));
}

/** Agents by id, named as everywhere else: by name (lib/agents/agent-label.ts). */
export function agentNames(sqlite: Database.Database): Map<string, string> {
  const rows = prepare(sqlite, "SELECT id, name FROM Agent").all() as Array<{ id: string; name: string }>;
  return new Map(rows.map((row) => [row.id, row.name]));
}

export type DayPoint = {
  day: string;
  created: number;
  completed: number;
  failed: number;
  cancelled: number;
  completionRate: number | null;
  failureRate: number | null;
  medianMs: number | null;
  p90Ms: number | null;
};

/** A day point per day of the range from the rows, each added to its day's totals by `add` (both stores). */
export function dayPoints<R extends RollupRow>(range: DayRange, rows: R[], add: (totals: Totals, row: R) => Totals): DayPoint[] {
  const byDay = new Map<string, Totals>();
  for (const row of rows) byDay.set(row.day, add(byDay.get(row.day) ?? emptyTotals(), row));
  return range.days.map((day) => {
    const summary = summarize(byDay.get(day) ?? emptyTotals());
    return {
      day,
      ...summary.tasks,
      medianMs: summary.durations.medianMs,
      p90Ms: summary.durations.p90Ms,
    };
  });
}

/**
 * GET /api/v1/metrics/tasks from the selection's rows, the swarm's rows (the
 * selection's own with an agent) and the agents' names; `add` adds a row to a
 * day's totals (both stores).
 */
export function taskSeries<R extends RollupRow>(
  range: DayRange,
  rows: R[],
  swarm: R[],
  names: Map<string, string>,
  add: (totals: Totals, row: R) => Totals,
) {
  const byAgent = new Map<string, R[]>();
  for (const row of rows) byAgent.set(row.agentId, [...(byAgent.get(row.agentId) ?? []), row]);
  const agents = [...byAgent.entries()]
    .map(([id, agentRows]) => ({
      agentId: id || null,
      agentName: id ? (names.get(id) ?? "(deleted agent)") : "(no agent)",
      points: dayPoints(range, agentRows, add),
    }))
    .sort((a, b) => a.agentName.localeCompare(b.agentName));
  return { range: { from: range.from, to: range.to, days: range.days.length }, swarm: dayPoints(range, swarm, add), agents };
}

/** Per-day series for the whole selection and for each agent (GET /api/v1/metrics/tasks). */
export async function getTaskSeries({ range, agentId }: { range: DayRange; agentId?: string }) {
  if (usesPostgres()) return (await import("./task-metrics.pg")).getTaskSeriesPg({ range, agentId });
  return withSqlite((sqlite) =>
    snapshot(sqlite, () => {
      const rows = readRollups(sqlite, range, agentId);
      const swarm = agentId ? rows : readRollups(sqlite, range, undefined, true);
      return taskSeries(range, rows, swarm, agentNames(sqlite), (totals, row) => addRow(totals, row, sqlite));
    }),
  );
}

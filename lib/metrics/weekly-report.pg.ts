// The PostgreSQL twin of weekly-report.ts: the same report, read on one snapshot
// through the twins of task-metrics.ts and failure-reasons.ts.
import "server-only";
import { readFailuresPg } from "./failure-reasons.pg";
import type { DayRange } from "./range";
import { addRowPg, agentNamesPg, type HistRow, readRollupsPg, snapshotPg } from "./task-metrics.pg";
import { weeklyFrom } from "./weekly-report";

export function getWeeklyReportPg({ thisWeek, lastWeek }: { thisWeek: DayRange; lastWeek: DayRange }) {
  return snapshotPg(async (sql) =>
    weeklyFrom<HistRow>({
      thisWeek,
      lastWeek,
      names: await agentNamesPg(sql),
      add: addRowPg,
      thisRows: await readRollupsPg(sql, thisWeek),
      lastRows: await readRollupsPg(sql, lastWeek),
      thisSwarm: await readRollupsPg(sql, thisWeek, undefined, true),
      lastSwarm: await readRollupsPg(sql, lastWeek, undefined, true),
      thisFailures: await readFailuresPg(sql, thisWeek.startMs, thisWeek.endMs),
      lastFailures: await readFailuresPg(sql, lastWeek.startMs, lastWeek.endMs),
    }),
  );
}

// The weekly report: the last 7 days against the 7 before, the top failure
// reasons of the week, and the agents whose failure rate moved the most.
import "server-only";
import { usesPostgres, withSqlite } from "@/lib/db";
import { type Clock, systemClock } from "@/lib/schedules/clock";
import { type FailedRow, failingAgents, groupFailures, readFailures } from "./failure-reasons";
import { addDays, type DayRange, dayRange } from "./range";
import { utcDay } from "./rollup-day";
import { addRow, agentNames, emptyTotals, type RollupRow, readRollups, snapshot, summarize, type Totals } from "./task-metrics";

/** An agent needs this many decided tasks in each week to be ranked by change. */
export const WEEKLY_MIN_TASKS = 3;

/** How far a failure rate moved; agents without enough tasks to tell sort last. */
const moved = (change: number | null) => (change === null ? -1 : Math.abs(change));

export async function getWeeklyReport({ clock = systemClock, endDay }: { clock?: Clock; endDay?: string } = {}) {
  const to = endDay ?? utcDay(clock());
  const thisWeek = dayRange(addDays(to, -6), to);
  const lastWeek = dayRange(addDays(to, -13), addDays(to, -7));
  if (usesPostgres()) return (await import("./weekly-report.pg")).getWeeklyReportPg({ thisWeek, lastWeek });
  return withSqlite((sqlite) =>
    snapshot(sqlite, () =>
      weeklyFrom<RollupRow>({
        thisWeek,
        lastWeek,
        names: agentNames(sqlite),
        add: (totals, row) => addRow(totals, row, sqlite),
        thisRows: readRollups(sqlite, thisWeek),
        lastRows: readRollups(sqlite, lastWeek),
        thisSwarm: readRollups(sqlite, thisWeek, undefined, true),
        lastSwarm: readRollups(sqlite, lastWeek, undefined, true),
        thisFailures: readFailures(sqlite, thisWeek.startMs, thisWeek.endMs),
        lastFailures: readFailures(sqlite, lastWeek.startMs, lastWeek.endMs),
      }),
    ),
  );
}

export type WeeklyInputs<R extends RollupRow> = {
  thisWeek: DayRange;
  lastWeek: DayRange;
  names: Map<string, string>;
  /** Adds a row (and its durations' histogram) to totals. */
  add: (totals: Totals, row: R) => Totals;
  thisRows: R[];
  lastRows: R[];
  thisSwarm: R[];
  lastSwarm: R[];
  thisFailures: FailedRow[];
  lastFailures: FailedRow[];
};

/** The weekly report from the two weeks' rows (shared with weekly-report.pg.ts). */
export function weeklyFrom<R extends RollupRow>(input: WeeklyInputs<R>) {
  const { thisWeek, lastWeek, names, add, thisRows, lastRows } = input;
  const sum = (rows: R[], key: (row: R) => string) => {
    const map = new Map<string, Totals>();
    for (const row of rows) map.set(key(row), add(map.get(key(row)) ?? emptyTotals(), row));
    return map;
  };
  const thisAgents = sum(thisRows, (row) => row.agentId);
  const lastAgents = sum(lastRows, (row) => row.agentId);
  const current = summarize(sum(input.thisSwarm, () => "all").get("all") ?? emptyTotals());
  const previous = summarize(sum(input.lastSwarm, () => "all").get("all") ?? emptyTotals());

  const agents = [...new Set([...thisAgents.keys(), ...lastAgents.keys()])]
    .filter((id) => id !== "")
    .map((id) => {
      const now = summarize(thisAgents.get(id) ?? emptyTotals());
      const before = summarize(lastAgents.get(id) ?? emptyTotals());
      const enough =
        now.tasks.completed + now.tasks.failed >= WEEKLY_MIN_TASKS && before.tasks.completed + before.tasks.failed >= WEEKLY_MIN_TASKS;
      return {
        agentId: id,
        agentName: names.get(id) ?? "(deleted agent)",
        thisWeek: {
          completed: now.tasks.completed,
          failed: now.tasks.failed,
          failureRate: now.tasks.failureRate,
          medianMs: now.durations.medianMs,
        },
        lastWeek: {
          completed: before.tasks.completed,
          failed: before.tasks.failed,
          failureRate: before.tasks.failureRate,
          medianMs: before.durations.medianMs,
        },
        failureRateChange: enough ? (now.tasks.failureRate ?? 0) - (before.tasks.failureRate ?? 0) : null,
        completedChange: now.tasks.completed - before.tasks.completed,
      };
    })
    .sort(
      (a, b) =>
        moved(b.failureRateChange) - moved(a.failureRateChange) ||
        Math.abs(b.completedChange) - Math.abs(a.completedChange) ||
        a.agentName.localeCompare(b.agentName),
    );

  const failures = groupFailures(input.thisFailures);
  const lastFailures = new Map(groupFailures(input.lastFailures).map((group) => [group.key, group.count]));
  return {
    thisWeek: { from: thisWeek.from, to: thisWeek.to, ...current },
    lastWeek: { from: lastWeek.from, to: lastWeek.to, ...previous },
    change: {
      completed: current.tasks.completed - previous.tasks.completed,
      failed: current.tasks.failed - previous.tasks.failed,
      failureRate:
        current.tasks.failureRate !== null && previous.tasks.failureRate !== null
          ? current.tasks.failureRate - previous.tasks.failureRate
          : null,
      medianMs:
        current.durations.medianMs !== null && previous.durations.medianMs !== null
          ? current.durations.medianMs - previous.durations.medianMs
          : null,
    },
    topFailureReasons: failures.slice(0, 5).map((group) => ({
      key: group.key,
      example: group.example,
      count: group.count,
      lastWeekCount: lastFailures.get(group.key) ?? 0,
      agents: group.agents,
      byAgent: failingAgents(group, names),
    })),
    biggestChanges: agents.slice(0, 5),
  };
}

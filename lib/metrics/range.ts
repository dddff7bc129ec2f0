// The day range of a metrics request: inclusive UTC days, last 30 by default.
import { METRICS_MAX_DAYS, type MetricsQuery } from "@/lib/contracts/metrics";
import { ApiError } from "@/lib/errors";
import { type Clock, systemClock } from "@/lib/schedules/clock";
import { utcDay } from "./rollup-day";

const DAY_MS = 86_400_000;

export type DayRange = {
  from: string;
  to: string;
  /** Every day of the range, in order. */
  days: string[];
  /** [startMs, endMs): epoch ms of the first day's midnight and the day after the last. */
  startMs: number;
  endMs: number;
};

export function dayStart(day: string): number {
  return Date.parse(`${day}T00:00:00Z`);
}

export function addDays(day: string, n: number): string {
  return utcDay(dayStart(day) + n * DAY_MS);
}

export function dayRange(from: string, to: string): DayRange {
  const startMs = dayStart(from);
  const endMs = dayStart(to) + DAY_MS;
  const days: string[] = [];
  for (let at = startMs; at < endMs; at += DAY_MS) days.push(utcDay(at));
  return { from, to, days, startMs, endMs };
}

export function resolveRange(query: Pick<MetricsQuery, "from" | "to">, clock: Clock = systemClock, defaultDays = 30): DayRange {
  const to = query.to ?? utcDay(clock());
  const from = query.from ?? addDays(to, -(defaultDays - 1));
  if (from > to) throw new ApiError("validation_failed", "`from` must not be after `to`", [{ path: "from", message: "after `to`" }]);
  const span = (dayStart(to) - dayStart(from)) / DAY_MS + 1;
  if (span > METRICS_MAX_DAYS) {
    throw new ApiError("validation_failed", `A range covers at most ${METRICS_MAX_DAYS} days`, [
      { path: "from", message: `${span} days requested` },
    ]);
  }
  return dayRange(from, to);
}

// Failure recurrence: failure reasons grouped after normalising away what
// differs between two occurrences of the same failure (ids, hashes, numbers,
// paths under temporary folders), with counts per day.
import "server-only";
import type Database from "better-sqlite3";
import { prepare, usesPostgres, withSqlite } from "@/lib/db";
import type { DayRange } from "./range";
import { utcDay } from "./rollup-day";
import { agentNames } from "./task-metrics";

const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
/** Long tokens mixing letters and digits: cuids, hashes, commit ids, random suffixes. */
const TOKEN = /\b(?=[a-z0-9_]*\d)(?=[a-z0-9_]*[a-z])[a-z0-9_]{7,}\b/gi;
const NUMBER = /\d+(?:\.\d+)?/g;

const memo = new Map<string, string>();

/** The grouping key of a failure reason: its first line, lower-case, ids → <id>, numbers → <n>. */
export function normalizeFailureReason(reason: string | null | undefined): string {
  const text = reason ?? "";
  const known = memo.get(text);
  if (known !== undefined) return known;
  const key = normalize(text);
  if (memo.size >= 50_000) memo.clear();
  memo.set(text, key);
  return key;
}

function normalize(reason: string): string {
  const firstLine = (reason ?? "").split("\n").find((line) => line.trim()) ?? "";
  const key = firstLine
    .toLowerCase()
    .replace(UUID, "<id>")
    .replace(TOKEN, "<id>")
    .replace(NUMBER, "<n>")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 200);
  return key || "(no reason given)";
}

export type FailureGroup = {
  key: string;
  /** One real reason of the group, as written. */
  example: string;
  count: number;
  agents: number;
  /** Failures of the group per agent id ("" for tasks without an agent). */
  perAgent: Record<string, number>;
  firstSeen: string;
  lastSeen: string;
  perDay: Record<string, number>;
};

export type FailedRow = { agentId: string | null; finishedAt: number; failureReason: string | null };

/** How long after a failure a retry may come and still have its earlier run counted in the failure's range. */
export const RETRY_WINDOW_MS = 30 * 86_400_000;

/**
 * Every run that ended failed in [startMs, endMs): tasks failed now, and the failed runs
 * a retry started over from (TaskEvent "attempt", kept by lib/tasks/operator-tasks.ts).
 * The same failures the rollup's `failed` counts, so the Failed card and the failure
 * reasons agree, also for a task that failed, was retried and then cancelled.
 */
export function readFailures(sqlite: Database.Database, startMs: number, endMs: number, agentId?: string): FailedRow[] {
  // Index Task(status, finishedAt) (migration 20261122040000_metrics_indexes) or Task(agentId, finishedAt).
  const current = agentId
    ? (prepare(
        sqlite,
        "SELECT agentId, finishedAt, failureReason FROM Task WHERE agentId = ? AND finishedAt >= ? AND finishedAt < ? AND status = 'failed'",
      ).all(agentId, startMs, endMs) as FailedRow[])
    : (prepare(
        sqlite,
        "SELECT agentId, finishedAt, failureReason FROM Task WHERE status = 'failed' AND finishedAt >= ? AND finishedAt < ?",
      ).all(startMs, endMs) as FailedRow[]);
  // Index TaskEvent(type, createdAt): a retry comes after the failure it starts over from.
  const earlier = prepare(
    sqlite,
    `SELECT json_extract(data, '$.agentId') AS agentId, json_extract(data, '$.finishedAt') AS finishedAt,
            json_extract(data, '$.failureReason') AS failureReason
     FROM TaskEvent WHERE type = 'attempt' AND createdAt >= ? AND createdAt < ? AND json_extract(data, '$.status') = 'failed'`,
  ).all(startMs, endMs + RETRY_WINDOW_MS) as Array<{ agentId: string | null; finishedAt: string | null; failureReason: string | null }>;
  for (const run of earlier) {
    const finishedAt = run.finishedAt ? Date.parse(run.finishedAt) : Number.NaN;
    if (!(finishedAt >= startMs && finishedAt < endMs)) continue;
    if (agentId && run.agentId !== agentId) continue;
    current.push({ agentId: run.agentId, finishedAt, failureReason: run.failureReason });
  }
  return current;
}

export function groupFailures(rows: FailedRow[]): FailureGroup[] {
  const groups = new Map<string, FailureGroup>();
  for (const row of rows) {
    const key = normalizeFailureReason(row.failureReason);
    const day = utcDay(row.finishedAt);
    let group = groups.get(key);
    if (!group) {
      group = {
        key,
        example: (row.failureReason ?? "").slice(0, 500),
        count: 0,
        agents: 0,
        firstSeen: day,
        lastSeen: day,
        perDay: {},
        perAgent: {},
      };
      groups.set(key, group);
    }
    group.count += 1;
    const agent = row.agentId ?? "";
    group.perAgent[agent] = (group.perAgent[agent] ?? 0) + 1;
    group.perDay[day] = (group.perDay[day] ?? 0) + 1;
    if (day < group.firstSeen) group.firstSeen = day;
    if (day > group.lastSeen) group.lastSeen = day;
  }
  return [...groups.values()]
    .map((group) => ({ ...group, agents: Object.keys(group.perAgent).length }))
    .sort((a, b) => b.count - a.count || a.key.localeCompare(b.key));
}

/** Which agents a group's failures came from, most first, by name (the lead acts on names). */
export function failingAgents(group: Pick<FailureGroup, "perAgent">, names: Map<string, string>) {
  return Object.entries(group.perAgent)
    .map(([agentId, count]) => ({ agentId: agentId || null, agentName: agentId ? (names.get(agentId) ?? "(deleted agent)") : null, count }))
    .sort((a, b) => b.count - a.count || String(a.agentName).localeCompare(String(b.agentName)));
}

/** GET /api/v1/metrics/failures: the top groups and their counts per day. */
export async function getFailureRecurrence({ range, agentId, limit = 8 }: { range: DayRange; agentId?: string; limit?: number }) {
  if (usesPostgres()) return (await import("./failure-reasons.pg")).getFailureRecurrencePg({ range, agentId, limit });
  return withSqlite((sqlite) =>
    recurrenceFrom(range, readFailures(sqlite, range.startMs, range.endMs, agentId), agentNames(sqlite), limit),
  );
}

/** The recurrence answer from the failed runs (shared with failure-reasons.pg.ts). */
export function recurrenceFrom(range: DayRange, failures: FailedRow[], names: Map<string, string>, limit: number) {
  const groups = groupFailures(failures);
  const top = groups.slice(0, limit);
  return {
    range: { from: range.from, to: range.to, days: range.days.length },
    totalFailed: groups.reduce((sum, group) => sum + group.count, 0),
    groupCount: groups.length,
    groups: top.map(({ perDay, perAgent, ...group }) => ({
      ...group,
      recurring: Object.keys(perDay).length > 1,
      byAgent: failingAgents({ perAgent }, names),
    })),
    series: range.days.map((day) => ({ day, counts: top.map((group) => group.perDay[day] ?? 0) })),
  };
}

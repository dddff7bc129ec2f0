// The PostgreSQL twin of failure-reasons.ts: the same failed runs. What differs:
// the "attempt" events' JSON (TaskEvent.data, text) is parsed here instead of by
// SQLite's json_extract in the query (a cast to jsonb in SQL could meet another
// event type's data first), and the rows are ordered explicitly as SQLite's index
// scans hand them back (by finish time), so each group's example is the same.
import "server-only";
import { pgSql, type Sql } from "@/lib/pg";
import { type FailedRow, RETRY_WINDOW_MS, recurrenceFrom } from "./failure-reasons";
import type { DayRange } from "./range";
import { agentNamesPg } from "./task-metrics.pg";

type Attempt = { agentId?: string | null; finishedAt?: string | null; failureReason?: string | null; status?: string };

/** readFailures of failure-reasons.ts. */
export async function readFailuresPg(sql: Sql, startMs: number, endMs: number, agentId?: string): Promise<FailedRow[]> {
  const current = agentId
    ? await sql.all<FailedRow>(
        `SELECT "agentId", "finishedAt", "failureReason" FROM "Task"
         WHERE "agentId" = $1 AND "finishedAt" >= $2 AND "finishedAt" < $3 AND "status" = 'failed' ORDER BY "finishedAt", "id"`,
        [agentId, new Date(startMs), new Date(endMs)],
      )
    : await sql.all<FailedRow>(
        `SELECT "agentId", "finishedAt", "failureReason" FROM "Task"
         WHERE "status" = 'failed' AND "finishedAt" >= $1 AND "finishedAt" < $2 ORDER BY "finishedAt", "id"`,
        [new Date(startMs), new Date(endMs)],
      );
  const earlier = await sql.all<{ data: string | null }>(
    `SELECT "data" FROM "TaskEvent" WHERE "type" = 'attempt' AND "createdAt" >= $1 AND "createdAt" < $2 ORDER BY "createdAt", "id"`,
    [new Date(startMs), new Date(endMs + RETRY_WINDOW_MS)],
  );
  for (const { data } of earlier) {
    let run: Attempt;
    try {
      run = JSON.parse(data ?? "null") as Attempt;
    } catch {
      continue;
    }
    if (!run || typeof run !== "object" || run.status !== "failed") continue;
    const finishedAt = typeof run.finishedAt === "string" ? Date.parse(run.finishedAt) : Number.NaN;
    if (!(finishedAt >= startMs && finishedAt < endMs)) continue;
    const runAgent = typeof run.agentId === "string" ? run.agentId : null;
    if (agentId && runAgent !== agentId) continue;
    current.push({ agentId: runAgent, finishedAt, failureReason: typeof run.failureReason === "string" ? run.failureReason : null });
  }
  return current;
}

export async function getFailureRecurrencePg({ range, agentId, limit }: { range: DayRange; agentId?: string; limit: number }) {
  const sql = pgSql();
  const failures = await readFailuresPg(sql, range.startMs, range.endMs, agentId);
  return recurrenceFrom(range, failures, await agentNamesPg(sql), limit);
}

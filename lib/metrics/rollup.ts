// Task rollups (TaskDailyRollup), kept exact by being written in the same raw
// transaction as each task change: one UPSERT per change. (The task code calls
// `recordTaskRollup` inside its writeTransaction for every create and finish.)
//
// What a row counts, per UTC day and agent ("" for no agent): tasks created that
// day, tasks finished that day by outcome, and the durations of the tasks
// *completed* that day (sum, count, log-scale histogram: lib/metrics/duration-buckets).
// Failed and cancelled durations are left out so duration trends show how long
// successful work takes, not how long a timeout took.
//
// No "server-only" here on purpose: the function works on whichever connection it
// is given, and the benchmark and the test seeders build their rollups with this
// very code on their own connections.
import type Database from "better-sqlite3";
import { BUCKETS, bucketOf, emptyHistogram } from "./duration-buckets";
import { utcDay } from "./rollup-day";

export { utcDay };

export type TaskRollupChange =
  | { kind: "created"; agentId: string | null; at: number }
  | { kind: "completed" | "failed" | "cancelled"; agentId: string | null; at: number; durationMs: number | null };

const EMPTY = JSON.stringify(emptyHistogram());

const statements = new WeakMap<Database.Database, Map<string, Database.Statement>>();

function prepare(sqlite: Database.Database, sql: string): Database.Statement {
  let cache = statements.get(sqlite);
  if (!cache) {
    cache = new Map();
    statements.set(sqlite, cache);
  }
  let statement = cache.get(sql);
  if (!statement) {
    statement = sqlite.prepare(sql);
    cache.set(sql, statement);
  }
  return statement;
}

const CREATED_SQL = `INSERT INTO TaskDailyRollup (day, agentId, created, durationHist) VALUES (@day, @agentId, 1, '${EMPTY}')
  ON CONFLICT(day, agentId) DO UPDATE SET created = created + 1`;

const FINISHED_SQL = `INSERT INTO TaskDailyRollup (day, agentId, completed, failed, cancelled, durationSumMs, durationCount, durationHist)
  VALUES (@day, @agentId, @completed, @failed, @cancelled, @sum, @count, @hist)
  ON CONFLICT(day, agentId) DO UPDATE SET
    completed = completed + excluded.completed,
    failed = failed + excluded.failed,
    cancelled = cancelled + excluded.cancelled,
    durationSumMs = durationSumMs + excluded.durationSumMs,
    durationCount = durationCount + excluded.durationCount,
    durationHist = CASE
      WHEN excluded.durationCount = 0 THEN durationHist
      WHEN json_valid(durationHist) AND json_array_length(durationHist) = ${BUCKETS}
        THEN json_set(durationHist, @path, json_extract(durationHist, @path) + 1)
      ELSE excluded.durationHist END`;

/** Records one task change in its day's rollup; call inside the change's write transaction. */
export function recordTaskRollup(sqlite: Database.Database, change: TaskRollupChange): void {
  const day = utcDay(change.at);
  const agentId = change.agentId ?? "";
  if (change.kind === "created") {
    prepare(sqlite, CREATED_SQL).run({ day, agentId });
    return;
  }
  const timed = change.kind === "completed" && change.durationMs !== null && Number.isFinite(change.durationMs) && change.durationMs >= 0;
  const bucket = timed ? bucketOf(change.durationMs as number) : 0;
  const hist = emptyHistogram();
  if (timed) hist[bucket] = 1;
  prepare(sqlite, FINISHED_SQL).run({
    day,
    agentId,
    completed: change.kind === "completed" ? 1 : 0,
    failed: change.kind === "failed" ? 1 : 0,
    cancelled: change.kind === "cancelled" ? 1 : 0,
    sum: timed ? (change.durationMs as number) : 0,
    count: timed ? 1 : 0,
    hist: JSON.stringify(hist),
    path: `$[${bucket}]`,
  });
}

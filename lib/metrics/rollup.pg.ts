// The PostgreSQL twin of rollup.ts: the same UPSERT per task change, written in
// the change's own transaction. Several app instances write one day's row at
// once, so every counter is added to in the UPDATE itself (x = x + excluded.x),
// and the histogram bucket is incremented in place with jsonb_set: no
// read-modify-write in JavaScript, so concurrent writers never lose a count.
// durationHist stays text (as on SQLite); a stored histogram that is not an array
// of BUCKETS numbers is replaced by the change's own, as rollup.ts does.
//
// No "server-only" here, like rollup.ts: the test seeders call it on their own connections.
import { BUCKETS, bucketOf, emptyHistogram } from "./duration-buckets";
import type { TaskRollupChange } from "./rollup";
import { utcDay } from "./rollup-day";

/** What the UPSERT runs on: a `Sql` of lib/pg.ts (or any handle with the same `run`). */
export type RollupSql = { run(text: string, params?: unknown[]): Promise<number> };

const EMPTY = JSON.stringify(emptyHistogram());

/** A histogram of BUCKETS non-negative numbers, as written by this code or by rollup.ts. */
const HIST_SHAPE = `^\\[\\s*[0-9]+(\\.[0-9]+)?(\\s*,\\s*[0-9]+(\\.[0-9]+)?){${BUCKETS - 1}}\\s*\\]$`;

const CREATED_SQL = `INSERT INTO "TaskDailyRollup" ("day", "agentId", "created", "durationHist") VALUES ($1, $2, 1, '${EMPTY}')
  ON CONFLICT ("day", "agentId") DO UPDATE SET "created" = "TaskDailyRollup"."created" + 1`;

const FINISHED_SQL = `INSERT INTO "TaskDailyRollup" ("day", "agentId", "completed", "failed", "cancelled", "durationSumMs", "durationCount", "durationHist")
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
  ON CONFLICT ("day", "agentId") DO UPDATE SET
    "completed" = "TaskDailyRollup"."completed" + excluded."completed",
    "failed" = "TaskDailyRollup"."failed" + excluded."failed",
    "cancelled" = "TaskDailyRollup"."cancelled" + excluded."cancelled",
    "durationSumMs" = "TaskDailyRollup"."durationSumMs" + excluded."durationSumMs",
    "durationCount" = "TaskDailyRollup"."durationCount" + excluded."durationCount",
    "durationHist" = CASE
      WHEN excluded."durationCount" = 0 THEN "TaskDailyRollup"."durationHist"
      WHEN "TaskDailyRollup"."durationHist" ~ '${HIST_SHAPE}'
        THEN jsonb_set("TaskDailyRollup"."durationHist"::jsonb, ARRAY[$9::text],
          to_jsonb(("TaskDailyRollup"."durationHist"::jsonb ->> $9::int)::numeric + 1))::text
      ELSE excluded."durationHist" END`;

/** Records one task change in its day's rollup; call inside the change's `pgTransaction`. */
export async function recordTaskRollupPg(sql: RollupSql, change: TaskRollupChange): Promise<void> {
  const day = utcDay(change.at);
  const agentId = change.agentId ?? "";
  if (change.kind === "created") {
    await sql.run(CREATED_SQL, [day, agentId]);
    return;
  }
  const timed = change.kind === "completed" && change.durationMs !== null && Number.isFinite(change.durationMs) && change.durationMs >= 0;
  const bucket = timed ? bucketOf(change.durationMs as number) : 0;
  const hist = emptyHistogram();
  if (timed) hist[bucket] = 1;
  await sql.run(FINISHED_SQL, [
    day,
    agentId,
    change.kind === "completed" ? 1 : 0,
    change.kind === "failed" ? 1 : 0,
    change.kind === "cancelled" ? 1 : 0,
    timed ? (change.durationMs as number) : 0,
    timed ? 1 : 0,
    JSON.stringify(hist),
    bucket,
  ]);
}

// The PostgreSQL twin of task-rows.ts: the same rows and small shared writes, on a
// `Sql` (lib/pg.ts) instead of the raw SQLite connection, so async. What differs:
// quoted identifiers and $n parameters; times written as Dates; `readTaskForUpdatePg`
// also locks the task row for the rest of the transaction, because on this store
// several app instances change tasks at once (every read-then-write of a task in
// the *.pg.ts files of lib/tasks starts with it). The DTO helpers stay in task-rows.ts.
import "server-only";
import { BUCKETS, bucketOf, emptyHistogram } from "@/lib/metrics/duration-buckets";
import type { TaskRollupChange } from "@/lib/metrics/rollup";
import { utcDay } from "@/lib/metrics/rollup-day";
import type { Sql } from "@/lib/pg";
import type { EventActor, TaskRow } from "./task-rows";

/** Selects a TaskRow: `FROM "Task" t LEFT JOIN "Agent" a ON a."id" = t."agentId"` (TASK_COLUMNS of task-rows.ts). */
export const TASK_COLUMNS_PG = `t."id", t."title", t."description", t."type", t."tags", t."priority", t."status", t."agentId",
  a."name" AS "agentName", t."parentTaskId", t."attempts", t."claimedAt", t."heartbeatAt", t."finishedAt", t."progress", t."output",
  t."summary", t."failureReason", t."soulVersionId", t."retryAt", t."lastAgentId", t."timeLimitMinutes", t."lastActivityAt",
  t."lastActivity", t."identityGrant", t."createdById", t."createdAt", t."updatedAt"`;

export const TASK_FROM_PG = `FROM "Task" t LEFT JOIN "Agent" a ON a."id" = t."agentId"`;

export function readTaskPg(sql: Sql, id: string): Promise<TaskRow | undefined> {
  return sql.get<TaskRow>(`SELECT ${TASK_COLUMNS_PG} ${TASK_FROM_PG} WHERE t."id" = $1`, [id]);
}

/**
 * Reads the task and locks its row until the transaction ends, so the status it
 * shows stays true while the caller acts on it (a worker's finish, the stall sweep
 * and an operator's cancel of the same task line up instead of both applying).
 */
export function readTaskForUpdatePg(sql: Sql, id: string): Promise<TaskRow | undefined> {
  return sql.get<TaskRow>(`SELECT ${TASK_COLUMNS_PG} ${TASK_FROM_PG} WHERE t."id" = $1 FOR NO KEY UPDATE OF t`, [id]);
}

export async function insertTaskEventPg(
  sql: Sql,
  event: {
    taskId: string;
    type: string;
    fromStatus?: string | null;
    toStatus?: string | null;
    message?: string;
    data?: Record<string, unknown>;
    actor: EventActor;
    at: number;
  },
): Promise<void> {
  await sql.run(
    `INSERT INTO "TaskEvent" ("taskId", "type", "fromStatus", "toStatus", "message", "data", "actorType", "actorId", "createdAt")
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [
      event.taskId,
      event.type,
      event.fromStatus ?? null,
      event.toStatus ?? null,
      event.message ?? "",
      JSON.stringify(event.data ?? {}),
      event.actor.type,
      event.actor.id,
      new Date(event.at),
    ],
  );
}

/** Ends the task's open session (one agent run), if any. */
export async function endOpenSessionPg(sql: Sql, taskId: string, at: number, summary: string | null = null): Promise<void> {
  await sql.run(`UPDATE "Session" SET "endedAt" = $1, "summary" = COALESCE($2, "summary") WHERE "taskId" = $3 AND "endedAt" IS NULL`, [
    new Date(at),
    summary,
    taskId,
  ]);
}

/**
 * busy while the agent holds an in-progress task, idle otherwise. The agent's row
 * is locked first and its tasks read in a statement after that: two transactions
 * finishing the agent's last two tasks at once would otherwise each still see the
 * other's task in progress and both leave the agent busy.
 */
export async function refreshAgentBusyPg(sql: Sql, agentId: string, at: number): Promise<void> {
  await sql.get(`SELECT 1 FROM "Agent" WHERE "id" = $1 FOR NO KEY UPDATE`, [agentId]);
  await sql.run(
    `UPDATE "Agent" SET "status" = s."want", "updatedAt" = $2
     FROM (SELECT CASE WHEN EXISTS (SELECT 1 FROM "Task" WHERE "agentId" = $1 AND "status" = 'in_progress') THEN 'busy' ELSE 'idle' END AS "want") s
     WHERE "id" = $1 AND "status" <> s."want"`,
    [agentId, new Date(at)],
  );
}

/** homeOf of task-rows.ts: where a task goes when it is given back. */
export async function homeOfPg(
  sql: Sql,
  task: { id: string; agentId: string | null },
): Promise<{ status: "pending" | "unassigned"; agentId: string | null }> {
  if (!task.agentId) return { status: "unassigned", agentId: null };
  const claim = await sql.get<{ fromStatus: string | null }>(
    `SELECT "fromStatus" FROM "TaskEvent" WHERE "taskId" = $1 AND "type" = 'claimed' ORDER BY "id" DESC LIMIT 1`,
    [task.id],
  );
  if (claim?.fromStatus === "unassigned") return { status: "unassigned", agentId: null };
  const agent = await sql.get<{ archivedAt: number | null }>(`SELECT "archivedAt" FROM "Agent" WHERE "id" = $1`, [task.agentId]);
  if (!agent || agent.archivedAt !== null) return { status: "unassigned", agentId: null };
  return { status: "pending", agentId: task.agentId };
}

const EMPTY_HISTOGRAM = JSON.stringify(emptyHistogram());

/**
 * recordTaskRollup of lib/metrics/rollup.ts on this store: the same one UPSERT per
 * task change into its day's TaskDailyRollup row, inside the change's transaction
 * (the row lock of the UPSERT keeps concurrent changes from losing a count).
 */
export async function recordTaskRollupPg(sql: Sql, change: TaskRollupChange): Promise<void> {
  const day = utcDay(change.at);
  const agentId = change.agentId ?? "";
  if (change.kind === "created") {
    await sql.run(
      `INSERT INTO "TaskDailyRollup" ("day", "agentId", "created", "durationHist") VALUES ($1, $2, 1, $3)
       ON CONFLICT ("day", "agentId") DO UPDATE SET "created" = "TaskDailyRollup"."created" + 1`,
      [day, agentId, EMPTY_HISTOGRAM],
    );
    return;
  }
  const timed = change.kind === "completed" && change.durationMs !== null && Number.isFinite(change.durationMs) && change.durationMs >= 0;
  const bucket = timed ? bucketOf(change.durationMs as number) : 0;
  const hist = emptyHistogram();
  if (timed) hist[bucket] = 1;
  await sql.run(
    `INSERT INTO "TaskDailyRollup" ("day", "agentId", "completed", "failed", "cancelled", "durationSumMs", "durationCount", "durationHist")
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT ("day", "agentId") DO UPDATE SET
       "completed" = "TaskDailyRollup"."completed" + excluded."completed",
       "failed" = "TaskDailyRollup"."failed" + excluded."failed",
       "cancelled" = "TaskDailyRollup"."cancelled" + excluded."cancelled",
       "durationSumMs" = "TaskDailyRollup"."durationSumMs" + excluded."durationSumMs",
       "durationCount" = "TaskDailyRollup"."durationCount" + excluded."durationCount",
       "durationHist" = CASE
         WHEN excluded."durationCount" = 0 THEN "TaskDailyRollup"."durationHist"
         WHEN "TaskDailyRollup"."durationHist" ~ '^\\s*\\[[-0-9.eE,\\s]*\\]\\s*$'
           AND jsonb_array_length("TaskDailyRollup"."durationHist"::jsonb) = ${BUCKETS}
           THEN jsonb_set("TaskDailyRollup"."durationHist"::jsonb, ARRAY[$10::text],
             to_jsonb(("TaskDailyRollup"."durationHist"::jsonb ->> $9::int)::numeric + 1))::text
         ELSE excluded."durationHist" END`,
    [
      day,
      agentId,
      change.kind === "completed" ? 1 : 0,
      change.kind === "failed" ? 1 : 0,
      change.kind === "cancelled" ? 1 : 0,
      timed ? (change.durationMs as number) : 0,
      timed ? 1 : 0,
      JSON.stringify(hist),
      bucket,
      String(bucket),
    ],
  );
}

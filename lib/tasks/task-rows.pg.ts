// The PostgreSQL twin of task-rows.ts: the same rows and small shared writes, on a
// `Sql` (lib/pg.ts) instead of the raw SQLite connection, so async. What differs:
// quoted identifiers and $n parameters; times written as Dates; `readTaskForUpdatePg`
// also locks the task row for the rest of the transaction, because on this store
// several app instances change tasks at once (every read-then-write of a task in
// the *.pg.ts files of lib/tasks starts with it). The DTO helpers stay in task-rows.ts.
import "server-only";
import type { Sql } from "@/lib/pg";
import { type TaskEventInput, type TaskRow, taskEventValues } from "./task-rows";

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

export async function insertTaskEventPg(sql: Sql, event: TaskEventInput): Promise<void> {
  await sql.run(
    `INSERT INTO "TaskEvent" ("taskId", "type", "fromStatus", "toStatus", "message", "data", "actorType", "actorId", "createdAt")
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [...taskEventValues(event), new Date(event.at)],
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

/** recordTaskRollup of lib/metrics/rollup.ts on this store (lib/metrics/rollup.pg.ts), for the task code's imports. */
export { recordTaskRollupPg } from "@/lib/metrics/rollup.pg";

// The PostgreSQL twin of operator-tasks.ts (list, read with events, create, the
// PATCH actions). What differs: the text filter is ILIKE (SQLite's LIKE ignores
// ASCII case), the tag filter reads the tags' JSON with jsonb_array_elements_text;
// each PATCH locks the task's row while it checks and changes it
// (readTaskForUpdatePg), so two operators (or an operator and a worker, on any app
// instance) cannot both apply a transition; the audit entry comes last in each
// transaction (lib/audit/audit-log.pg.ts).
import "server-only";
import type { z } from "zod";
import type { Actor } from "@/lib/audit/audit-log";
import { appendAuditPg } from "@/lib/audit/audit-log.pg";
import type { listTasksQuerySchema, PatchTaskBody, TaskDto, TaskEventDto, TaskStatus } from "@/lib/contracts/tasks";
import { ApiError, notFound } from "@/lib/errors";
import { pgSql, pgTransaction, type Sql } from "@/lib/pg";
import { announceTasks } from "./dispatch";
import {
  assertNotFinished,
  assertNotRunning,
  assertRetryable,
  createdAudit,
  createdEvent,
  grantAudit,
  grantEvent,
  keptRunEvent,
  MAX_EVENTS,
  moveAudit,
  moveEvent,
  type NewTaskCall,
  newTask,
  newTaskValues,
} from "./operator-tasks";
import { finishTaskPg } from "./task-finish.pg";
import { type EventRow, type TaskRow, toEventDto, toTaskDto } from "./task-rows";
import {
  homeOfPg,
  insertTaskEventPg,
  readTaskForUpdatePg,
  readTaskPg,
  recordTaskRollupPg,
  TASK_COLUMNS_PG,
  TASK_FROM_PG,
} from "./task-rows.pg";

type ListQuery = z.infer<typeof listTasksQuerySchema>;

export async function listTasksPg(
  query: ListQuery,
  window: { sinceMs?: number; untilMs?: number } = {},
): Promise<{ tasks: TaskDto[]; nextCursor: string | null }> {
  const sql = pgSql();
  const where: string[] = [];
  const args: unknown[] = [];
  const param = (value: unknown) => {
    args.push(value);
    return `$${args.length}`;
  };
  if (window.sinceMs !== undefined) where.push(`COALESCE(t."finishedAt", t."createdAt") >= ${param(new Date(window.sinceMs))}`);
  if (window.untilMs !== undefined) where.push(`COALESCE(t."finishedAt", t."createdAt") < ${param(new Date(window.untilMs))}`);
  if (query.status && query.status.length > 0) where.push(`t."status" = ANY(${param(query.status)}::text[])`);
  if (query.agentId) where.push(`t."agentId" = ${param(query.agentId)}`);
  if (query.tag) where.push(`EXISTS (SELECT 1 FROM jsonb_array_elements_text(t."tags"::jsonb) AS tag WHERE tag = ${param(query.tag)})`);
  if (query.q?.trim()) {
    const like = param(`%${query.q.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    where.push(`(t."title" ILIKE ${like} ESCAPE '\\' OR t."description" ILIKE ${like} ESCAPE '\\' OR t."id" = ${param(query.q.trim())})`);
  }
  if (query.cursor) {
    const cursor = await sql.get<{ createdAt: number; id: string }>(`SELECT "createdAt", "id" FROM "Task" WHERE "id" = $1`, [query.cursor]);
    if (!cursor) throw new ApiError("bad_request", "The cursor does not name a task");
    const createdAt = param(new Date(cursor.createdAt));
    where.push(`(t."createdAt" < ${createdAt} OR (t."createdAt" = ${createdAt} AND t."id" < ${param(cursor.id)}))`);
  }
  const limit = param(query.limit + 1);
  const rows = await sql.all<TaskRow>(
    `SELECT ${TASK_COLUMNS_PG} ${TASK_FROM_PG} ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
     ORDER BY t."createdAt" DESC, t."id" DESC LIMIT ${limit}`,
    args,
  );
  const page = rows.slice(0, query.limit);
  return { tasks: page.map(toTaskDto), nextCursor: rows.length > query.limit ? (page.at(-1)?.id ?? null) : null };
}

export async function getTaskWithEventsPg({ id }: { id: string }): Promise<{ task: TaskDto; events: TaskEventDto[] }> {
  const sql = pgSql();
  const task = await readTaskPg(sql, id);
  if (!task) throw notFound("Task");
  const events = await sql.all<EventRow>(
    `SELECT * FROM (SELECT "id", "type", "fromStatus", "toStatus", "message", "data", "actorType", "actorId", "createdAt"
       FROM "TaskEvent" WHERE "taskId" = $1 ORDER BY "id" DESC LIMIT $2) e ORDER BY "id"`,
    [id, MAX_EVENTS],
  );
  return { task: toTaskDto(task), events: events.map(toEventDto) };
}

/** An agent that is not archived; its row is share-locked so it cannot be archived before the commit. */
async function activeAgent(sql: Sql, agentId: string): Promise<{ id: string; name: string }> {
  const agent = await sql.get<{ id: string; name: string }>(
    `SELECT "id", "name" FROM "Agent" WHERE "id" = $1 AND "archivedAt" IS NULL FOR SHARE`,
    [agentId],
  );
  if (!agent) throw notFound("Agent");
  return agent;
}

export async function createTaskPg({ input, actor, createdById = null }: NewTaskCall): Promise<TaskDto> {
  const row = await pgTransaction(async (sql) => {
    const agent = input.agentId ? await activeAgent(sql, input.agentId) : null;
    if (input.parentTaskId && !(await sql.get(`SELECT 1 FROM "Task" WHERE "id" = $1`, [input.parentTaskId]))) {
      throw notFound("Parent task");
    }
    const now = Date.now();
    const at = new Date(now);
    const task = newTask(input, agent);
    await sql.run(
      `INSERT INTO "Task" ("id", "title", "description", "type", "tags", "priority", "status", "agentId", "parentTaskId", "timeLimitMinutes",
         "identityGrant", "createdById", "createdAt", "updatedAt")
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13)`,
      [...newTaskValues(task, input, createdById), at],
    );
    await insertTaskEventPg(sql, createdEvent(task, actor, now));
    if (input.identityGrant.length > 0) {
      await insertTaskEventPg(sql, grantEvent({ taskId: task.id, from: [], to: input.identityGrant, actor, now }));
    }
    await recordTaskRollupPg(sql, { kind: "created", agentId: agent?.id ?? null, at: now });
    const created = await readTaskPg(sql, task.id);
    if (!created) throw new Error("created task vanished");
    await appendAuditPg(sql, createdAudit(task, input, actor));
    return created;
  });
  announceTasks({ agentId: row.agentId });
  return toTaskDto(row);
}

/** moveTask of operator-tasks.ts, without its audit entry: the caller appends it last (`moveAudit` of operator-tasks.ts). */
async function moveTask(
  sql: Sql,
  task: TaskRow,
  to: { status: TaskStatus; agentId: string | null },
  { type, message, actor, now, reset = false }: { type: string; message: string; actor: Actor; now: number; reset?: boolean },
) {
  const changed = await sql.run(
    reset
      ? `UPDATE "Task" SET "status" = $1, "agentId" = $2, "updatedAt" = $3, "attempts" = 0, "claimedAt" = NULL, "heartbeatAt" = NULL,
           "finishedAt" = NULL, "progress" = NULL, "output" = NULL, "summary" = NULL, "failureReason" = NULL, "retryAt" = NULL,
           "lastAgentId" = NULL, "lastActivityAt" = NULL, "lastActivity" = NULL WHERE "id" = $4 AND "status" = $5`
      : `UPDATE "Task" SET "status" = $1, "agentId" = $2, "updatedAt" = $3 WHERE "id" = $4 AND "status" = $5`,
    [to.status, to.agentId, new Date(now), task.id, task.status],
  );
  if (changed !== 1) throw new Error(`task ${task.id} is no longer ${task.status}`);
  await insertTaskEventPg(sql, moveEvent(task, to, { type, message, actor, now }));
}

type Patched = { row: TaskRow | undefined; wake: { agentId: string | null } | undefined; freed: string | null };

export async function patchTaskPg({ id, input, actor }: { id: string; input: PatchTaskBody; actor: Actor }): Promise<TaskDto> {
  const { row, wake, freed } = await pgTransaction(async (sql): Promise<Patched> => {
    const task = await readTaskForUpdatePg(sql, id);
    if (!task) throw notFound("Task");
    const now = Date.now();
    switch (input.action) {
      case "cancel": {
        assertNotFinished(task, "cancelled");
        const row = await finishTaskPg(sql, task, { status: "cancelled", reason: input.reason ?? null }, actor, now);
        return { row, wake: undefined, freed: task.status === "in_progress" ? task.agentId : null };
      }
      case "reassign": {
        assertNotFinished(task, "reassigned");
        assertNotRunning(task, "reassigned");
        const agent = await activeAgent(sql, input.agentId);
        if (task.status === "pending" && task.agentId === agent.id) {
          throw new ApiError("conflict", `The task is already waiting for ${agent.name}`);
        }
        const to = { status: "pending" as const, agentId: agent.id };
        await moveTask(sql, task, to, { type: "status", message: `Assigned to ${agent.name}`, actor, now });
        const row = await readTaskPg(sql, id);
        await appendAuditPg(sql, moveAudit(task, to, "task.reassigned", actor));
        return { row, wake: { agentId: agent.id }, freed: null };
      }
      case "unassign": {
        assertNotFinished(task, "returned to the pool");
        assertNotRunning(task, "returned to the pool");
        if (task.status === "unassigned") throw new ApiError("conflict", "The task is already in the pool");
        const to = { status: "unassigned" as const, agentId: null };
        await moveTask(sql, task, to, {
          type: "status",
          message: task.status === "offered" ? "Accepted into the pool" : "Returned to the pool",
          actor,
          now,
        });
        const row = await readTaskPg(sql, id);
        await appendAuditPg(sql, moveAudit(task, to, "task.unassigned", actor));
        return { row, wake: { agentId: null }, freed: null };
      }
      case "grant": {
        assertNotFinished(task, "given identity rights");
        const grant = { taskId: id, from: JSON.parse(task.identityGrant) as string[], to: input.identityGrant, actor, now };
        await sql.run(`UPDATE "Task" SET "identityGrant" = $1, "updatedAt" = $2 WHERE "id" = $3`, [
          JSON.stringify(input.identityGrant),
          new Date(now),
          id,
        ]);
        await insertTaskEventPg(sql, grantEvent(grant));
        const row = await readTaskPg(sql, id);
        await appendAuditPg(sql, grantAudit(task, grant));
        return { row, wake: undefined, freed: null };
      }
      case "retry": {
        assertRetryable(task);
        const home = await homeOfPg(sql, task);
        const target =
          home.status === "pending" ? await sql.get<{ name: string }>(`SELECT "name" FROM "Agent" WHERE "id" = $1`, [home.agentId]) : null;
        await insertTaskEventPg(sql, keptRunEvent(task, actor, now));
        await moveTask(sql, task, home, {
          type: "status",
          message: target ? `Retried: waiting for ${target.name} again` : "Retried: back in the pool",
          actor,
          now,
          reset: true,
        });
        const row = await readTaskPg(sql, id);
        await appendAuditPg(sql, moveAudit(task, home, "task.retried", actor));
        return { row, wake: { agentId: home.agentId }, freed: null };
      }
    }
  });
  if (!row) throw notFound("Task");
  if (wake) announceTasks(wake);
  if (freed) announceTasks({ agentId: freed });
  return toTaskDto(row);
}

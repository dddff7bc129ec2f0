// The operator API's tasks: list (filters, cursor paging), create (for an agent
// or the pool), read with events, and the operator actions (cancel, reassign,
// return to the pool, retry). Writes are raw transactions so the metrics rollup
// is exact (lib/metrics/rollup.ts) and waiting polls are woken after the commit.
import "server-only";
import type Database from "better-sqlite3";
import type { z } from "zod";
import { type Actor, type AuditInput, appendAuditSync } from "@/lib/audit/audit-log";
import {
  type CreateTaskBody,
  FINISHED_STATUSES,
  type listTasksQuerySchema,
  type PatchTaskBody,
  type TaskDto,
  type TaskEventDto,
  type TaskStatus,
} from "@/lib/contracts/tasks";
import { prepare, usesPostgres, withSqlite, writeTransaction } from "@/lib/db";
import { ApiError, notFound } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { recordTaskRollup } from "@/lib/metrics/rollup";
import { announceTasks } from "./dispatch";
import { finishTaskSync } from "./task-finish";
import {
  type EventRow,
  eventActor,
  homeOf,
  insertTaskEvent,
  readTask,
  TASK_COLUMNS,
  TASK_FROM,
  type TaskEventInput,
  type TaskRow,
  toEventDto,
  toTaskDto,
} from "./task-rows";

type ListQuery = z.infer<typeof listTasksQuerySchema>;

export const MAX_EVENTS = 1000;

function isFinished(status: TaskStatus) {
  return (FINISHED_STATUSES as readonly string[]).includes(status);
}

/**
 * Newest first; the cursor is the last task id of the previous page. `window`
 * bounds each task's last activity (its finish, else its creation), in epoch ms.
 */
export function listTasks(
  query: ListQuery,
  window: { sinceMs?: number; untilMs?: number } = {},
): Promise<{ tasks: TaskDto[]; nextCursor: string | null }> {
  if (usesPostgres()) return import("./operator-tasks.pg").then(({ listTasksPg }) => listTasksPg(query, window));
  return withSqlite((sqlite) => {
    const where: string[] = [];
    const args: Array<string | number> = [];
    if (window.sinceMs !== undefined) {
      where.push("COALESCE(t.finishedAt, t.createdAt) >= ?");
      args.push(window.sinceMs);
    }
    if (window.untilMs !== undefined) {
      where.push("COALESCE(t.finishedAt, t.createdAt) < ?");
      args.push(window.untilMs);
    }
    if (query.status && query.status.length > 0) {
      where.push(`t.status IN (${query.status.map(() => "?").join(", ")})`);
      args.push(...query.status);
    }
    if (query.agentId) {
      where.push("t.agentId = ?");
      args.push(query.agentId);
    }
    if (query.tag) {
      where.push("EXISTS (SELECT 1 FROM json_each(t.tags) WHERE json_each.value = ?)");
      args.push(query.tag);
    }
    if (query.q?.trim()) {
      where.push("(t.title LIKE ? ESCAPE '\\' OR t.description LIKE ? ESCAPE '\\' OR t.id = ?)");
      const like = `%${query.q.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      args.push(like, like, query.q.trim());
    }
    if (query.cursor) {
      const cursor = prepare(sqlite, "SELECT createdAt, id FROM Task WHERE id = ?").get(query.cursor) as
        | { createdAt: number; id: string }
        | undefined;
      if (!cursor) throw new ApiError("bad_request", "The cursor does not name a task");
      where.push("(t.createdAt < ? OR (t.createdAt = ? AND t.id < ?))");
      args.push(cursor.createdAt, cursor.createdAt, cursor.id);
    }
    const sql = `SELECT ${TASK_COLUMNS} ${TASK_FROM} ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
      ORDER BY t.createdAt DESC, t.id DESC LIMIT ?`;
    const rows = prepare(sqlite, sql).all(...args, query.limit + 1) as TaskRow[];
    const page = rows.slice(0, query.limit);
    return { tasks: page.map(toTaskDto), nextCursor: rows.length > query.limit ? (page.at(-1)?.id ?? null) : null };
  });
}

export function getTaskWithEvents({ id }: { id: string }): Promise<{ task: TaskDto; events: TaskEventDto[] }> {
  if (usesPostgres()) return import("./operator-tasks.pg").then(({ getTaskWithEventsPg }) => getTaskWithEventsPg({ id }));
  return withSqlite((sqlite) => {
    const task = readTask(sqlite, id);
    if (!task) throw notFound("Task");
    const events = prepare(
      sqlite,
      `SELECT * FROM (SELECT id, type, fromStatus, toStatus, message, data, actorType, actorId, createdAt
         FROM TaskEvent WHERE taskId = ? ORDER BY id DESC LIMIT ?) ORDER BY id`,
    ).all(id, MAX_EVENTS) as EventRow[];
    return { task: toTaskDto(task), events: events.map(toEventDto) };
  });
}

function activeAgent(sqlite: Database.Database, agentId: string): { id: string; name: string } {
  const agent = prepare(sqlite, "SELECT id, name FROM Agent WHERE id = ? AND archivedAt IS NULL").get(agentId) as
    | { id: string; name: string }
    | undefined;
  if (!agent) throw notFound("Agent");
  return agent;
}

/** The run that ended, kept on the timeline before a retry clears the task's own fields (both stores). */
export function keptRunEvent(task: TaskRow, actor: Actor, now: number) {
  return {
    taskId: task.id,
    type: "attempt",
    fromStatus: task.status,
    toStatus: task.status,
    message: `Run kept under Earlier runs before the retry (it ended ${task.status})`,
    data: {
      status: task.status,
      agentId: task.agentId ?? task.lastAgentId,
      agentName: task.agentName,
      attempts: task.attempts,
      claimedAt: task.claimedAt === null ? null : new Date(task.claimedAt).toISOString(),
      finishedAt: task.finishedAt === null ? null : new Date(task.finishedAt).toISOString(),
      output: task.output,
      summary: task.summary,
      failureReason: task.failureReason,
    },
    actor: eventActor(actor),
    at: now,
  };
}

type NewTask = { id: string; status: TaskStatus; agent: { id: string; name: string } | null; tags: string[] };

/** A new operator task (both stores): pending for its agent, else in the pool; its tags without repeats. */
export function newTask(input: CreateTaskBody, agent: NewTask["agent"]): NewTask {
  return { id: newId(), status: agent ? "pending" : "unassigned", agent, tags: [...new Set(input.tags)] };
}

/** Its Task columns from id to createdById, in the order of both stores' INSERT (createdAt and updatedAt follow). */
export function newTaskValues({ id, status, agent, tags }: NewTask, input: CreateTaskBody, createdById: string | null) {
  return [
    id,
    input.title,
    input.description,
    input.type,
    JSON.stringify(tags),
    input.priority,
    status,
    agent?.id ?? null,
    // Empty means none, as for agentId.
    input.parentTaskId || null,
    input.timeLimitMinutes ?? null,
    JSON.stringify(input.identityGrant),
    createdById,
  ];
}

/** The timeline event of an operator's new task (both stores: createTask, createTaskPg in operator-tasks.pg.ts). */
export function createdEvent({ id, status, agent }: NewTask, actor: Actor, now: number): TaskEventInput {
  return {
    taskId: id,
    type: "created",
    toStatus: status,
    message: agent ? `Created for ${agent.name}` : "Created in the pool",
    actor: eventActor(actor),
    at: now,
  };
}

/** The audit entry of an operator's new task (both stores). */
export function createdAudit({ id, status, agent, tags }: NewTask, input: CreateTaskBody, actor: Actor): AuditInput {
  return {
    actor,
    action: "task.created",
    targetType: "task",
    targetId: id,
    agentId: agent?.id ?? null,
    data: { title: input.title, status, priority: input.priority, tags, identityGrant: input.identityGrant },
  };
}

/** An operator's create call (both stores: createTask, createTaskPg in operator-tasks.pg.ts). */
export type NewTaskCall = { input: CreateTaskBody; actor: Actor; createdById?: string | null };

/** With an agent: pending for it. Without: unassigned, in the pool. */
export async function createTask({ input, actor, createdById = null }: NewTaskCall): Promise<TaskDto> {
  if (usesPostgres()) return (await import("./operator-tasks.pg")).createTaskPg({ input, actor, createdById });
  const row = await writeTransaction((sqlite) => {
    const agent = input.agentId ? activeAgent(sqlite, input.agentId) : null;
    if (input.parentTaskId && !prepare(sqlite, "SELECT 1 FROM Task WHERE id = ?").get(input.parentTaskId)) {
      throw notFound("Parent task");
    }
    const now = Date.now();
    const task = newTask(input, agent);
    prepare(
      sqlite,
      `INSERT INTO Task (id, title, description, type, tags, priority, status, agentId, parentTaskId, timeLimitMinutes, identityGrant,
         createdById, createdAt, updatedAt)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(...newTaskValues(task, input, createdById), now, now);
    insertTaskEvent(sqlite, createdEvent(task, actor, now));
    appendAuditSync(sqlite, createdAudit(task, input, actor));
    if (input.identityGrant.length > 0) {
      insertTaskEvent(sqlite, grantEvent({ taskId: task.id, from: [], to: input.identityGrant, actor, now }));
    }
    recordTaskRollup(sqlite, { kind: "created", agentId: agent?.id ?? null, at: now });
    const created = readTask(sqlite, task.id);
    if (!created) throw new Error("created task vanished");
    return created;
  });
  announceTasks({ agentId: row.agentId });
  return toTaskDto(row);
}

export function assertNotFinished(task: TaskRow, action: string) {
  if (isFinished(task.status)) {
    throw new ApiError("already_finished", `The task is already ${task.status}; it cannot be ${action}`, { status: task.status });
  }
}

export function assertNotRunning(task: TaskRow, action: string) {
  if (task.status === "in_progress") {
    throw new ApiError("conflict", `The task is in progress; cancel it first if it must be ${action}`, { status: task.status });
  }
}

type Destination = { status: TaskStatus; agentId: string | null };

function moveTask(
  sqlite: Database.Database,
  task: TaskRow,
  to: Destination,
  {
    type,
    message,
    action,
    actor,
    now,
    reset = false,
  }: { type: string; message: string; action: string; actor: Actor; now: number; reset?: boolean },
) {
  prepare(
    sqlite,
    reset
      ? `UPDATE Task SET status = ?, agentId = ?, updatedAt = ?, attempts = 0, claimedAt = NULL, heartbeatAt = NULL, finishedAt = NULL,
           progress = NULL, output = NULL, summary = NULL, failureReason = NULL, retryAt = NULL, lastAgentId = NULL,
           lastActivityAt = NULL, lastActivity = NULL WHERE id = ?`
      : "UPDATE Task SET status = ?, agentId = ?, updatedAt = ? WHERE id = ?",
  ).run(to.status, to.agentId, now, task.id);
  insertTaskEvent(sqlite, moveEvent(task, to, { type, message, actor, now }));
  appendAuditSync(sqlite, moveAudit(task, to, action, actor));
}

/** The timeline event of an operator's move of a task (both stores: moveTask here and in operator-tasks.pg.ts). */
export function moveEvent(
  task: TaskRow,
  to: Destination,
  { type, message, actor, now }: { type: string; message: string; actor: Actor; now: number },
): TaskEventInput {
  return {
    taskId: task.id,
    type,
    fromStatus: task.status,
    toStatus: to.status,
    message,
    actor: eventActor(actor),
    at: now,
  };
}

/** The audit entry of an operator's move of a task (both stores). */
export function moveAudit(task: TaskRow, to: Destination, action: string, actor: Actor): AuditInput {
  return {
    actor,
    action,
    targetType: "task",
    targetId: task.id,
    agentId: to.agentId ?? task.agentId,
    data: { from: { status: task.status, agentId: task.agentId }, to },
  };
}

export type Grant = { taskId: string; from: string[]; to: string[]; actor: Actor; now: number };

/**
 * A grant is an explicit request by a person: on the task's timeline (this event, both
 * stores) and in the audit (`grantAudit`; the create audit carries the first one).
 */
export function grantEvent({ taskId, from, to, actor, now }: Grant): TaskEventInput {
  return {
    taskId,
    type: "grant",
    message: to.length > 0 ? `Identity rights granted: ${to.join(", ")}` : "Identity rights withdrawn",
    data: { from, to },
    actor: eventActor(actor),
    at: now,
  };
}

/** The audit entry of a grant that changes a task's identity rights (both stores). */
export function grantAudit(task: TaskRow, { from, to, actor }: Grant): AuditInput {
  return {
    actor,
    action: "task.identity_granted",
    targetType: "task",
    targetId: task.id,
    agentId: task.agentId,
    data: { from, to, status: task.status },
  };
}

/** Only a failed or cancelled task can be retried (both stores). */
export function assertRetryable(task: TaskRow) {
  if (task.status !== "failed" && task.status !== "cancelled") {
    throw new ApiError("conflict", `Only a failed or cancelled task can be retried; this one is ${task.status}`, {
      status: task.status,
    });
  }
}

/** cancel | reassign | unassign (return to the pool, or accept an offered task into it) | retry | grant (identity rights). */
export async function patchTask({ id, input, actor }: { id: string; input: PatchTaskBody; actor: Actor }): Promise<TaskDto> {
  if (usesPostgres()) return (await import("./operator-tasks.pg")).patchTaskPg({ id, input, actor });
  const { row, wake, freed } = await writeTransaction((sqlite) => {
    const task = readTask(sqlite, id);
    if (!task) throw notFound("Task");
    const now = Date.now();
    switch (input.action) {
      case "cancel": {
        assertNotFinished(task, "cancelled");
        const row = finishTaskSync(sqlite, task, { status: "cancelled", reason: input.reason ?? null }, actor, now);
        return { row, wake: undefined, freed: task.status === "in_progress" ? task.agentId : null };
      }
      case "reassign": {
        assertNotFinished(task, "reassigned");
        assertNotRunning(task, "reassigned");
        const agent = activeAgent(sqlite, input.agentId);
        if (task.status === "pending" && task.agentId === agent.id) {
          throw new ApiError("conflict", `The task is already waiting for ${agent.name}`);
        }
        moveTask(
          sqlite,
          task,
          { status: "pending", agentId: agent.id },
          { type: "status", message: `Assigned to ${agent.name}`, action: "task.reassigned", actor, now },
        );
        return { row: readTask(sqlite, id), wake: { agentId: agent.id }, freed: null };
      }
      case "unassign": {
        assertNotFinished(task, "returned to the pool");
        assertNotRunning(task, "returned to the pool");
        if (task.status === "unassigned") throw new ApiError("conflict", "The task is already in the pool");
        moveTask(
          sqlite,
          task,
          { status: "unassigned", agentId: null },
          {
            type: "status",
            message: task.status === "offered" ? "Accepted into the pool" : "Returned to the pool",
            action: "task.unassigned",
            actor,
            now,
          },
        );
        return { row: readTask(sqlite, id), wake: { agentId: null }, freed: null };
      }
      case "grant": {
        assertNotFinished(task, "given identity rights");
        const grant = { taskId: id, from: JSON.parse(task.identityGrant) as string[], to: input.identityGrant, actor, now };
        prepare(sqlite, "UPDATE Task SET identityGrant = ?, updatedAt = ? WHERE id = ?").run(JSON.stringify(input.identityGrant), now, id);
        insertTaskEvent(sqlite, grantEvent(grant));
        appendAuditSync(sqlite, grantAudit(task, grant));
        return { row: readTask(sqlite, id), wake: undefined, freed: null };
      }
      case "retry": {
        assertRetryable(task);
        const home = homeOf(sqlite, task);
        const target =
          home.status === "pending" ? (prepare(sqlite, "SELECT name FROM Agent WHERE id = ?").get(home.agentId) as { name: string }) : null;
        // The run that ended is kept on the timeline before the retry clears the task's own fields.
        insertTaskEvent(sqlite, keptRunEvent(task, actor, now));
        moveTask(sqlite, task, home, {
          type: "status",
          message: target ? `Retried: waiting for ${target.name} again` : "Retried: back in the pool",
          action: "task.retried",
          actor,
          now,
          reset: true,
        });
        return { row: readTask(sqlite, id), wake: { agentId: home.agentId }, freed: null };
      }
    }
  });
  if (!row) throw notFound("Task");
  if (wake) announceTasks(wake);
  if (freed) announceTasks({ agentId: freed });
  return toTaskDto(row);
}

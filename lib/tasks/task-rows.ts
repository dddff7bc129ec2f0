// The task tables as the raw SQL of lib/tasks reads and writes them: row types,
// their wire shapes (lib/contracts/tasks), ids, and the small writes every
// lifecycle step shares (an event, the end of a session, the agent's busy flag).
// DateTime columns hold epoch milliseconds (lib/db.ts).
import "server-only";
import type Database from "better-sqlite3";
import type { Actor } from "@/lib/audit/audit-log";
import type { TaskDto, TaskEventDto, TaskStatus } from "@/lib/contracts/tasks";
import { prepare } from "@/lib/db";
import { maxAttempts } from "./settings";

export type TaskRow = {
  id: string;
  title: string;
  description: string;
  type: string;
  tags: string;
  priority: number;
  status: TaskStatus;
  agentId: string | null;
  agentName: string | null;
  parentTaskId: string | null;
  attempts: number;
  claimedAt: number | null;
  heartbeatAt: number | null;
  finishedAt: number | null;
  progress: string | null;
  output: string | null;
  summary: string | null;
  failureReason: string | null;
  soulVersionId: string | null;
  retryAt: number | null;
  lastAgentId: string | null;
  timeLimitMinutes: number | null;
  lastActivityAt: number | null;
  lastActivity: string | null;
  identityGrant: string;
  createdById: string | null;
  createdAt: number;
  updatedAt: number;
};

/** The Task table's columns of a TaskRow (all but agentName, which is the agent's). */
const TASK_FIELDS = `id, title, description, type, tags, priority, status, agentId, parentTaskId, attempts, claimedAt,
  heartbeatAt, finishedAt, progress, output, summary, failureReason, soulVersionId, retryAt, lastAgentId,
  timeLimitMinutes, lastActivityAt, lastActivity, identityGrant, createdById, createdAt, updatedAt`;

/** Selects a TaskRow: `FROM Task t LEFT JOIN Agent a ON a.id = t.agentId`. */
export const TASK_COLUMNS = `${TASK_FIELDS.replace(/\w+/g, "t.$&")}, a.name AS agentName`;

/**
 * Ends an UPDATE of one task (`UPDATE Task SET ... WHERE id = ? ${TASK_RETURNING}`) so
 * it answers the row as written, without a second read; add agentName with withAgentName.
 */
export const TASK_RETURNING = `RETURNING ${TASK_FIELDS}`;

/** A row from an UPDATE ... TASK_RETURNING, with the name of its agent (known to the caller). */
export function withAgentName(row: Omit<TaskRow, "agentName"> | undefined, agentName: string | null): TaskRow | undefined {
  return row && { ...row, agentName: row.agentId === null ? null : agentName };
}

export const TASK_FROM = "FROM Task t LEFT JOIN Agent a ON a.id = t.agentId";

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** Archived agents carry a "~archived-<id>" suffix on their name; show the name they had. */
function displayAgentName(name: string | null): string | null {
  return name === null ? null : name.replace(/~archived-.*$/, "");
}

export function toTaskDto(row: TaskRow): TaskDto {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    type: row.type,
    tags: JSON.parse(row.tags) as string[],
    priority: row.priority,
    status: row.status,
    agentId: row.agentId,
    agentName: displayAgentName(row.agentName),
    parentTaskId: row.parentTaskId,
    attempts: row.attempts,
    maxAttempts: maxAttempts(),
    retryAt: iso(row.retryAt),
    timeLimitMinutes: row.timeLimitMinutes,
    lastActivityAt: iso(row.lastActivityAt),
    lastActivity: row.lastActivity,
    claimedAt: iso(row.claimedAt),
    heartbeatAt: iso(row.heartbeatAt),
    finishedAt: iso(row.finishedAt),
    progress: row.progress,
    output: row.output,
    summary: row.summary,
    failureReason: row.failureReason,
    identityGrant: JSON.parse(row.identityGrant) as string[],
    createdAt: new Date(row.createdAt).toISOString(),
    updatedAt: new Date(row.updatedAt).toISOString(),
  };
}

// The hot statements' texts are built once: prepare() finds its cached statement by
// the text, and a template built per call is a new long string to hash every time.
const READ_TASK_SQL = `SELECT ${TASK_COLUMNS} ${TASK_FROM} WHERE t.id = ?`;

export function readTask(sqlite: Database.Database, id: string): TaskRow | undefined {
  return prepare(sqlite, READ_TASK_SQL).get(id) as TaskRow | undefined;
}

export type EventRow = {
  id: number;
  type: string;
  fromStatus: string | null;
  toStatus: string | null;
  message: string;
  data: string;
  actorType: string;
  actorId: string | null;
  createdAt: number;
};

export function toEventDto(row: EventRow): TaskEventDto {
  let data: unknown = {};
  try {
    data = JSON.parse(row.data);
  } catch {
    data = {};
  }
  return { ...row, data, createdAt: new Date(row.createdAt).toISOString() };
}

export type EventActor = { type: string; id: string | null };

/** The actor of a task event: the audit actor without its label. */
export function eventActor(actor: Actor): EventActor {
  return { type: actor.type, id: actor.id };
}

/** One task event, as both stores write it (insertTaskEvent here, insertTaskEventPg in task-rows.pg.ts). */
export type TaskEventInput = {
  taskId: string;
  type: string;
  fromStatus?: string | null;
  toStatus?: string | null;
  message?: string;
  data?: Record<string, unknown>;
  actor: EventActor;
  at: number;
};

/** The event's columns from taskId to actorId, defaults filled in; `createdAt` (the event's `at`) follows them in both stores. */
export function taskEventValues(event: TaskEventInput) {
  return [
    event.taskId,
    event.type,
    event.fromStatus ?? null,
    event.toStatus ?? null,
    event.message ?? "",
    JSON.stringify(event.data ?? {}),
    event.actor.type,
    event.actor.id,
  ];
}

export function insertTaskEvent(sqlite: Database.Database, event: TaskEventInput): void {
  prepare(
    sqlite,
    `INSERT INTO TaskEvent (taskId, type, fromStatus, toStatus, message, data, actorType, actorId, createdAt)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(...taskEventValues(event), event.at);
}

/** Ends the task's open session (one agent run), if any. */
export function endOpenSession(sqlite: Database.Database, taskId: string, at: number, summary: string | null = null): void {
  prepare(sqlite, "UPDATE Session SET endedAt = ?, summary = COALESCE(?, summary) WHERE taskId = ? AND endedAt IS NULL").run(
    at,
    summary,
    taskId,
  );
}

/** busy while the agent holds an in-progress task, idle otherwise. */
export function refreshAgentBusy(sqlite: Database.Database, agentId: string, at: number): void {
  prepare(
    sqlite,
    `UPDATE Agent SET status = CASE WHEN EXISTS (SELECT 1 FROM Task WHERE agentId = @agentId AND status = 'in_progress') THEN 'busy' ELSE 'idle' END,
       updatedAt = @at
     WHERE id = @agentId AND status <> CASE WHEN EXISTS (SELECT 1 FROM Task WHERE agentId = @agentId AND status = 'in_progress') THEN 'busy' ELSE 'idle' END`,
  ).run({ agentId, at });
}

/**
 * Where a task goes when it is given back (release, stall, retry): to its agent
 * when it was created or assigned for it, to the pool when an agent took it from
 * the pool. The last claim event's fromStatus remembers which.
 */
export function homeOf(
  sqlite: Database.Database,
  task: { id: string; agentId: string | null },
): { status: "pending" | "unassigned"; agentId: string | null } {
  if (!task.agentId) return { status: "unassigned", agentId: null };
  const claim = prepare(sqlite, "SELECT fromStatus FROM TaskEvent WHERE taskId = ? AND type = 'claimed' ORDER BY id DESC LIMIT 1").get(
    task.id,
  ) as { fromStatus: string | null } | undefined;
  if (claim?.fromStatus === "unassigned") return { status: "unassigned", agentId: null };
  const agent = prepare(sqlite, "SELECT archivedAt FROM Agent WHERE id = ?").get(task.agentId) as { archivedAt: number | null } | undefined;
  if (!agent || agent.archivedAt !== null) return { status: "unassigned", agentId: null };
  return { status: "pending", agentId: task.agentId };
}

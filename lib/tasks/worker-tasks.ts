// The worker protocol's calls on one claimed task (heartbeat, complete, fail,
// release) and a worker filing a task of its own. Only the agent holding a task
// may touch it; a finish is final (409 already_finished, nothing changes).
import "server-only";
import type Database from "better-sqlite3";
import { type AuditInput, appendAuditSync } from "@/lib/audit/audit-log";
import type { WorkerPrincipal } from "@/lib/auth/principal";
import { FINISHED_STATUSES, type SessionTranscriptBody, type TaskDto, type TaskStatus } from "@/lib/contracts/tasks";
import { prepare, usesPostgres, writeTransaction } from "@/lib/db";
import { ApiError, notFound } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { summarizeSessionSafely } from "@/lib/memory/session-summary";
import { recordTaskRollup } from "@/lib/metrics/rollup";
import { announceTasks } from "./dispatch";
import { lastSeenCommitted, touchLastSeen } from "./last-seen";
import { maxAttempts } from "./settings";
import { attemptsExhaustedReason, type Finish, finishTaskSync, indexOutcomeSafely, type Requeue, requeueTaskSync } from "./task-finish";
import { insertTaskEvent, readTask, type TaskEventInput, type TaskRow, toTaskDto } from "./task-rows";

export function workerActor(principal: WorkerPrincipal) {
  return { type: "worker" as const, id: principal.agent.id, label: principal.agent.name };
}

/** The task as read, if this agent holds it: 404 unknown, 403 someone else's (both stores: ownTaskPg in worker-tasks.pg.ts). */
export function ownedTask(task: TaskRow | undefined, principal: WorkerPrincipal): TaskRow {
  if (!task) throw notFound("Task");
  if (task.agentId !== principal.agent.id) throw new ApiError("forbidden", "This task belongs to another agent (or to the pool)");
  return task;
}

/** The task, if this agent holds it: 404 unknown, 403 someone else's. */
export function ownTaskSync(sqlite: Database.Database, principal: WorkerPrincipal, taskId: string): TaskRow {
  return ownedTask(readTask(sqlite, taskId), principal);
}

/** A finish or a give-back needs the task in progress: 409 already_finished, or 409 conflict when it was taken back (both stores). */
export function assertRunning(task: TaskRow) {
  if ((FINISHED_STATUSES as readonly string[]).includes(task.status)) {
    throw new ApiError("already_finished", `The task is already ${task.status}`, { status: task.status });
  }
  if (task.status !== "in_progress") {
    throw new ApiError("conflict", `The task is ${task.status}, not in progress: it was given back; poll for work again`, {
      status: task.status,
    });
  }
}

/** A heartbeat call (both stores: heartbeatTask, heartbeatTaskPg in worker-tasks.pg.ts). */
export type Heartbeat = {
  principal: WorkerPrincipal;
  taskId: string;
  progress?: string;
  lastActivity?: { at: string; what: string };
};

/**
 * A heartbeat (with an optional progress note, which becomes an event). The answer
 * says whether to stop: `cancelled` is true when the task was cancelled or taken
 * back (stall, operator), i.e. whenever it is no longer in progress and not finished by this worker.
 */
export function heartbeatTask({
  principal,
  taskId,
  progress,
  lastActivity,
}: Heartbeat): Promise<{ cancelled: boolean; status: TaskStatus }> {
  if (usesPostgres()) {
    return import("./worker-tasks.pg").then(({ heartbeatTaskPg }) => heartbeatTaskPg({ principal, taskId, progress, lastActivity }));
  }
  let seenAt = 0;
  const beat = writeTransaction((sqlite) => {
    const task = ownTaskSync(sqlite, principal, taskId);
    const now = Date.now();
    seenAt = touchLastSeen(sqlite, principal.agent.id, now);
    if (task.status !== "in_progress") {
      return { cancelled: task.status !== "completed" && task.status !== "failed", status: task.status };
    }
    const note = progress?.trim();
    // A sign of life from the future (a skewed worker clock) is taken as now.
    const activityAt = lastActivity ? Math.min(Date.parse(lastActivity.at), now) : null;
    prepare(
      sqlite,
      `UPDATE Task SET heartbeatAt = ?, progress = COALESCE(?, progress), lastActivityAt = COALESCE(?, lastActivityAt),
         lastActivity = COALESCE(?, lastActivity), updatedAt = ? WHERE id = ?`,
    ).run(now, note || null, activityAt, lastActivity?.what ?? null, now, taskId);
    if (note) {
      insertTaskEvent(sqlite, { taskId, type: "progress", message: note, actor: { type: "worker", id: principal.agent.id }, at: now });
      appendAuditSync(sqlite, progressAudit(principal, taskId, note));
    }
    return { cancelled: false, status: "in_progress" as const };
  });
  return beat.then((answer) => {
    if (seenAt) lastSeenCommitted(principal.agent.id, seenAt);
    return answer;
  });
}

/** The audit entry of a heartbeat's progress note (both stores). */
export function progressAudit(principal: WorkerPrincipal, taskId: string, note: string): AuditInput {
  return {
    actor: workerActor(principal),
    action: "task.progress",
    targetType: "task",
    targetId: taskId,
    agentId: principal.agent.id,
    data: { progress: note.slice(0, 200) },
  };
}

/** A complete or fail call (both stores). */
export type WorkerFinish = {
  principal: WorkerPrincipal;
  taskId: string;
  finish: Extract<Finish, { status: "completed" | "failed" }>;
  /** What the session summary is made from (P4); nothing is stored without a summary model. */
  session?: SessionTranscriptBody;
};

/** complete or fail: final; the outcome is indexed into memory after the commit. */
export async function finishByWorker({ principal, taskId, finish, session }: WorkerFinish): Promise<TaskDto> {
  if (usesPostgres()) return (await import("./worker-tasks.pg")).finishByWorkerPg({ principal, taskId, finish, session });
  let seenAt = 0;
  const row = await writeTransaction((sqlite) => {
    const task = ownTaskSync(sqlite, principal, taskId);
    assertRunning(task);
    const now = Date.now();
    seenAt = touchLastSeen(sqlite, principal.agent.id, now);
    return finishTaskSync(sqlite, task, finish, workerActor(principal), now);
  });
  if (seenAt) lastSeenCommitted(principal.agent.id, seenAt);
  announceTasks({ agentId: principal.agent.id });
  await indexOutcomeSafely(row);
  if (session?.transcript.trim()) await summarizeSessionSafely({ agentId: principal.agent.id, taskId, title: row.title, session });
  return toTaskDto(row);
}

/** A worker's give-back as requeueTaskSync (and requeueTaskPg) takes it; its reason also ends the last attempt (both stores). */
export function releaseRequeue(principal: WorkerPrincipal, reason: string, now: number): Requeue {
  return {
    type: "released",
    reason: `Given back by ${principal.agent.name}: ${reason}`,
    action: "task.released",
    actor: workerActor(principal),
    now,
  };
}

/** A give-back call (both stores). */
export type WorkerRelease = { principal: WorkerPrincipal; taskId: string; reason: string };

/**
 * A give-back (the agent or the worker gave up, the worker is stopping): it uses
 * an attempt like a stall does. Within the limit the task goes back to its agent
 * or the pool (with a backoff for this agent); on the last attempt it fails with
 * every attempt's reason, and the failure is indexed into memory like any other.
 */
export async function releaseByWorker({ principal, taskId, reason }: WorkerRelease): Promise<TaskDto> {
  if (usesPostgres()) return (await import("./worker-tasks.pg")).releaseByWorkerPg({ principal, taskId, reason });
  const { row, wake } = await writeTransaction((sqlite) => {
    const task = ownTaskSync(sqlite, principal, taskId);
    assertRunning(task);
    const release = releaseRequeue(principal, reason, Date.now());
    if (task.attempts >= maxAttempts()) {
      const failureReason = attemptsExhaustedReason(sqlite, task, release.reason);
      const failed = finishTaskSync(sqlite, task, { status: "failed", failureReason, output: null }, release.actor, release.now);
      return { row: failed, wake: principal.agent.id };
    }
    const { row, home } = requeueTaskSync(sqlite, task, release);
    return { row, wake: home.agentId };
  });
  announceTasks({ agentId: wake });
  if (row.status === "failed") await indexOutcomeSafely(row);
  return toTaskDto(row);
}

/** The timeline event of a task an agent proposes (both stores: createTaskByWorker, createTaskByWorkerPg in worker-tasks.pg.ts). */
export function proposedEvent(principal: WorkerPrincipal, taskId: string, now: number): TaskEventInput {
  return {
    taskId,
    type: "created",
    toStatus: "offered",
    message: `Proposed by ${principal.agent.name}; waiting for an operator to accept it`,
    actor: { type: "worker", id: principal.agent.id },
    at: now,
  };
}

/** The audit entry of a task an agent proposes (both stores). */
export function proposedAudit(principal: WorkerPrincipal, taskId: string, title: string, tags: string[]): AuditInput {
  return {
    actor: workerActor(principal),
    action: "task.created",
    targetType: "task",
    targetId: taskId,
    agentId: principal.agent.id,
    data: { title, status: "offered", tags },
  };
}

/** A task an agent proposes (both stores). */
export type WorkerProposal = {
  principal: WorkerPrincipal;
  input: { title: string; description: string; tags: string[]; type?: string };
};

/**
 * A task an agent proposes (idle improvement proposals). It is `offered`: on the
 * board for an operator to accept (assign it, or put it in the pool) or cancel;
 * no worker claims it before that.
 */
export async function createTaskByWorker({ principal, input }: WorkerProposal): Promise<TaskDto> {
  if (usesPostgres()) return (await import("./worker-tasks.pg")).createTaskByWorkerPg({ principal, input });
  const row = await writeTransaction((sqlite) => {
    const now = Date.now();
    const id = newId();
    const tags = [...new Set(input.tags)];
    prepare(
      sqlite,
      `INSERT INTO Task (id, title, description, type, tags, priority, status, agentId, createdById, createdAt, updatedAt)
       VALUES (?, ?, ?, ?, ?, 0, 'offered', NULL, ?, ?, ?)`,
    ).run(id, input.title, input.description, input.type ?? "task", JSON.stringify(tags), principal.agent.id, now, now);
    insertTaskEvent(sqlite, proposedEvent(principal, id, now));
    appendAuditSync(sqlite, proposedAudit(principal, id, input.title, tags));
    recordTaskRollup(sqlite, { kind: "created", agentId: null, at: now });
    const created = readTask(sqlite, id);
    if (!created) throw new Error("created task vanished");
    return created;
  });
  return toTaskDto(row);
}

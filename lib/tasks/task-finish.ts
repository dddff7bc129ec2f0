// Ending a run of a task: completed, failed or cancelled (a finish), or given back
// to its agent or the pool (release, stall). Each is one raw write transaction
// with its event, audit entry, session end and metrics rollup; callers announce
// freed work and index outcomes after the commit.
import "server-only";
import type Database from "better-sqlite3";
import { type Actor, type AuditInput, appendAuditSync } from "@/lib/audit/audit-log";
import type { TaskStatus } from "@/lib/contracts/tasks";
import { prepare } from "@/lib/db";
import { indexTaskOutcome } from "@/lib/memory/task-memories";
import { recordTaskRollup } from "@/lib/metrics/rollup";
import { maxAttempts, retryBackoffMs } from "./settings";
import {
  endOpenSession,
  eventActor,
  homeOf,
  insertTaskEvent,
  readTask,
  refreshAgentBusy,
  TASK_RETURNING,
  type TaskEventInput,
  type TaskRow,
  withAgentName,
} from "./task-rows";

export type Finish =
  | { status: "completed"; output: string; summary: string | null }
  | { status: "failed"; failureReason: string; output: string | null }
  | { status: "cancelled"; reason: string | null };

/** The timeline event of a finish (both stores: finishTaskSync, finishTaskPg in task-finish.pg.ts). */
export function finishEvent(task: TaskRow, finish: Finish, actor: Actor, now: number, durationMs: number | null): TaskEventInput {
  const message =
    finish.status === "completed"
      ? "Completed"
      : finish.status === "failed"
        ? `Failed: ${finish.failureReason.slice(0, 500)}`
        : `Cancelled${finish.reason ? `: ${finish.reason}` : ""}`;
  return {
    taskId: task.id,
    type: "status",
    fromStatus: task.status,
    toStatus: finish.status,
    message,
    data: durationMs === null ? {} : { durationMs },
    actor: eventActor(actor),
    at: now,
  };
}

/** The audit entry of a finish (both stores). */
export function finishAudit(task: TaskRow, finish: Finish, actor: Actor, durationMs: number | null): AuditInput {
  return {
    actor,
    action: `task.${finish.status}`,
    targetType: "task",
    targetId: task.id,
    agentId: task.agentId,
    data: {
      from: task.status,
      ...(durationMs === null ? {} : { durationMs }),
      ...(finish.status === "failed" ? { failureReason: finish.failureReason.slice(0, 500) } : {}),
      ...(finish.status === "cancelled" && finish.reason ? { reason: finish.reason } : {}),
    },
  };
}

/** Built once (see READ_TASK_SQL in task-rows.ts). */
const FINISH_SQL = `UPDATE Task SET status = ?, finishedAt = ?, updatedAt = ?,
    output = COALESCE(?, output), summary = COALESCE(?, summary), failureReason = ?
  WHERE id = ? ${TASK_RETURNING}`;

/** Writes a finish inside the caller's transaction; `task` is the row read in it. */
export function finishTaskSync(sqlite: Database.Database, task: TaskRow, finish: Finish, actor: Actor, now: number): TaskRow {
  const durationMs = task.claimedAt !== null && task.status === "in_progress" ? Math.max(0, now - task.claimedAt) : null;
  // The row as written (the writes below touch other tables), read back by the UPDATE itself.
  const written = prepare(sqlite, FINISH_SQL).get(
    finish.status,
    now,
    now,
    finish.status === "cancelled" ? null : finish.output,
    finish.status === "completed" ? finish.summary : null,
    finish.status === "failed" ? finish.failureReason : finish.status === "cancelled" ? task.failureReason : null,
    task.id,
  );
  insertTaskEvent(sqlite, finishEvent(task, finish, actor, now, durationMs));
  if (task.status === "in_progress") {
    endOpenSession(sqlite, task.id, now, finish.status === "completed" ? finish.summary : null);
  }
  appendAuditSync(sqlite, finishAudit(task, finish, actor, durationMs));
  recordTaskRollup(sqlite, { kind: finish.status, agentId: task.agentId, at: now, durationMs });
  if (task.agentId && task.status === "in_progress") refreshAgentBusy(sqlite, task.agentId, now);
  const after = withAgentName(written as Omit<TaskRow, "agentName"> | undefined, task.agentName);
  if (!after) throw new Error("finished task vanished");
  return after;
}

/** A give-back (release) or a stall: what requeueTaskSync and requeueTaskPg (task-finish.pg.ts) are told. */
export type Requeue = { type: "released" | "stalled"; reason: string; action: string; actor: Actor; now: number };

export type Home = { status: TaskStatus; agentId: string | null };

/** The timeline event of a requeue (both stores). */
export function requeueEvent(task: TaskRow, home: Home, { type, reason, actor, now }: Requeue, retryAt: number | null): TaskEventInput {
  const destination = home.status === "pending" ? "back to its agent" : "back to the pool";
  return {
    taskId: task.id,
    type,
    fromStatus: task.status,
    toStatus: home.status,
    message: `${reason} (attempt ${task.attempts} of ${maxAttempts()}); ${destination}`,
    data: { attempt: task.attempts, previousAgentId: task.agentId, reason: reason.slice(0, 2000), retryAt },
    actor: eventActor(actor),
    at: now,
  };
}

/** The audit entry of a requeue (both stores). */
export function requeueAudit(task: TaskRow, home: Home, { reason, action, actor }: Requeue): AuditInput {
  return {
    actor,
    action,
    targetType: "task",
    targetId: task.id,
    agentId: task.agentId,
    data: { to: home.status, attempt: task.attempts, reason: reason.slice(0, 500) },
  };
}

/**
 * Gives an in-progress task back: to its agent (pending) when it was created for
 * it, else to the pool. The attempt it used stays counted; after a give-back the
 * agent whose attempt it was waits out a backoff before it gets the task again
 * (another agent may take a pool task at once: dispatch.ts).
 */
export function requeueTaskSync(sqlite: Database.Database, task: TaskRow, requeue: Requeue): { row: TaskRow; home: Home } {
  const { type, now } = requeue;
  const home = homeOf(sqlite, task);
  // A give-back waits out a backoff for this agent; a stall (its worker died) does not: a restarted worker may go on at once.
  const retryAt = type === "released" ? now + retryBackoffMs(task.attempts) : null;
  prepare(
    sqlite,
    `UPDATE Task SET status = ?, agentId = ?, claimedAt = NULL, heartbeatAt = NULL, progress = NULL, updatedAt = ?,
       retryAt = ?, lastAgentId = ?, lastActivityAt = NULL, lastActivity = NULL
     WHERE id = ?`,
  ).run(home.status, home.agentId, now, retryAt, task.agentId, task.id);
  endOpenSession(sqlite, task.id, now, null);
  insertTaskEvent(sqlite, requeueEvent(task, home, requeue, retryAt));
  appendAuditSync(sqlite, requeueAudit(task, home, requeue));
  if (task.agentId) refreshAgentBusy(sqlite, task.agentId, now);
  const row = readTask(sqlite, task.id);
  if (!row) throw new Error("requeued task vanished");
  return { row, home };
}

/**
 * The failure reason of a task whose last allowed attempt ended without a result:
 * every attempt's reason, oldest first (the earlier ones from the timeline), so
 * the task explains itself without opening the timeline.
 */
export function attemptsExhaustedReason(sqlite: Database.Database, task: TaskRow, lastReason: string): string {
  const events = prepare(
    sqlite,
    "SELECT message, data FROM TaskEvent WHERE taskId = ? AND type IN ('released', 'stalled') ORDER BY id DESC LIMIT ?",
  ).all(task.id, Math.max(0, task.attempts - 1)) as GiveBackEvent[];
  return attemptsReason(task, events, lastReason);
}

export type GiveBackEvent = { message: string; data: string | null };

/**
 * attemptsExhaustedReason from the task's earlier give-back and stall events, newest first
 * (both stores read them: attemptsExhaustedReasonPg in task-finish.pg.ts).
 */
export function attemptsReason(task: TaskRow, newestFirst: GiveBackEvent[], lastReason: string): string {
  const limit = maxAttempts();
  const earlier = [...newestFirst].reverse().map((event) => {
    const data = event.data ? (JSON.parse(event.data) as { attempt?: number; reason?: string }) : {};
    return `- attempt ${data.attempt ?? "?"}: ${(data.reason ?? event.message).split("\n")[0]!.slice(0, 500)}`;
  });
  return [
    `Gave up after ${task.attempts} attempt${task.attempts === 1 ? "" : "s"} (limit ${limit}):`,
    ...earlier,
    `- attempt ${task.attempts}: ${lastReason.split("\n")[0]!.slice(0, 500)}`,
    ...(lastReason.includes("\n") ? ["", `Last attempt in full:\n${lastReason.slice(0, 4000)}`] : []),
  ].join("\n");
}

const INDEX_WAIT_MS = 2_000;

/**
 * After a complete or fail committed: the outcome becomes memory. Waits a little
 * (so the memory is there when the answer arrives) but never fails the request.
 */
export async function indexOutcomeSafely(row: TaskRow): Promise<void> {
  if (row.status !== "completed" && row.status !== "failed") return;
  const work = indexTaskOutcome({
    task: {
      id: row.id,
      title: row.title,
      description: row.description,
      type: row.type,
      tags: JSON.parse(row.tags) as string[],
      agentId: row.agentId,
      status: row.status,
      output: row.output,
      failureReason: row.failureReason,
      summary: row.summary,
    },
  }).catch((error) => console.error(`[swarmdeck] indexing the outcome of task ${row.id} failed`, error));
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise((resolve) => (timer = setTimeout(resolve, INDEX_WAIT_MS)))]);
  clearTimeout(timer);
}

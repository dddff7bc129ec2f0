// The PostgreSQL twin of worker-tasks.ts (heartbeat, complete, fail, release, a
// worker's own proposal). What differs: each call is one pgTransaction that reads
// the task with its row locked (readTaskForUpdatePg), so a heartbeat, a finish, a
// give-back, the stall sweep and an operator's cancel of one task, on any app
// instance, apply one at a time and each sees the state the previous one left;
// the transitions themselves are guarded UPDATEs (task-finish.pg.ts); the audit
// entry comes last in each transaction (lib/audit/audit-log.pg.ts).
import "server-only";
import { appendAuditPg } from "@/lib/audit/audit-log.pg";
import type { WorkerPrincipal } from "@/lib/auth/principal";
import type { TaskDto, TaskStatus } from "@/lib/contracts/tasks";
import { newId } from "@/lib/ids";
import { summarizeSessionSafely } from "@/lib/memory/session-summary";
import { pgTransaction, type Sql } from "@/lib/pg";
import { announceTasks } from "./dispatch";
import { lastSeenCommitted, touchLastSeenPg } from "./last-seen";
import { maxAttempts } from "./settings";
import { indexOutcomeSafely } from "./task-finish";
import { attemptsExhaustedReasonPg, finishTaskPg, requeueTaskPg } from "./task-finish.pg";
import { type TaskRow, toTaskDto } from "./task-rows";
import { insertTaskEventPg, readTaskForUpdatePg, readTaskPg, recordTaskRollupPg } from "./task-rows.pg";
import {
  assertRunning,
  type Heartbeat,
  ownedTask,
  progressAudit,
  proposedAudit,
  proposedEvent,
  releaseRequeue,
  type WorkerFinish,
  type WorkerProposal,
  type WorkerRelease,
  workerActor,
} from "./worker-tasks";

/** ownTaskSync on this store: the task, locked, if this agent holds it (404 unknown, 403 someone else's). */
export async function ownTaskPg(sql: Sql, principal: WorkerPrincipal, taskId: string, { lock = true } = {}): Promise<TaskRow> {
  return ownedTask(lock ? await readTaskForUpdatePg(sql, taskId) : await readTaskPg(sql, taskId), principal);
}

export function heartbeatTaskPg({
  principal,
  taskId,
  progress,
  lastActivity,
}: Heartbeat): Promise<{ cancelled: boolean; status: TaskStatus }> {
  let seenAt = 0;
  const beat = pgTransaction(async (sql) => {
    const task = await ownTaskPg(sql, principal, taskId);
    const now = Date.now();
    seenAt = await touchLastSeenPg(sql, principal.agent.id, now);
    if (task.status !== "in_progress") {
      return { cancelled: task.status !== "completed" && task.status !== "failed", status: task.status };
    }
    const note = progress?.trim();
    const activityAt = lastActivity ? Math.min(Date.parse(lastActivity.at), now) : null;
    await sql.run(
      `UPDATE "Task" SET "heartbeatAt" = $1, "progress" = COALESCE($2, "progress"), "lastActivityAt" = COALESCE($3, "lastActivityAt"),
         "lastActivity" = COALESCE($4, "lastActivity"), "updatedAt" = $1 WHERE "id" = $5 AND "status" = 'in_progress'`,
      [new Date(now), note || null, activityAt === null ? null : new Date(activityAt), lastActivity?.what ?? null, taskId],
    );
    if (note) {
      await insertTaskEventPg(sql, { taskId, type: "progress", message: note, actor: { type: "worker", id: principal.agent.id }, at: now });
      await appendAuditPg(sql, progressAudit(principal, taskId, note));
    }
    return { cancelled: false, status: "in_progress" as const };
  });
  return beat.then((answer) => {
    if (seenAt) lastSeenCommitted(principal.agent.id, seenAt);
    return answer;
  });
}

export async function finishByWorkerPg({ principal, taskId, finish, session }: WorkerFinish): Promise<TaskDto> {
  let seenAt = 0;
  const row = await pgTransaction(async (sql) => {
    const task = await ownTaskPg(sql, principal, taskId);
    assertRunning(task);
    const now = Date.now();
    seenAt = await touchLastSeenPg(sql, principal.agent.id, now);
    return finishTaskPg(sql, task, finish, workerActor(principal), now);
  });
  if (seenAt) lastSeenCommitted(principal.agent.id, seenAt);
  announceTasks({ agentId: principal.agent.id });
  await indexOutcomeSafely(row);
  if (session?.transcript.trim()) await summarizeSessionSafely({ agentId: principal.agent.id, taskId, title: row.title, session });
  return toTaskDto(row);
}

export async function releaseByWorkerPg({ principal, taskId, reason }: WorkerRelease): Promise<TaskDto> {
  const { row, wake } = await pgTransaction(async (sql) => {
    const task = await ownTaskPg(sql, principal, taskId);
    assertRunning(task);
    const release = releaseRequeue(principal, reason, Date.now());
    if (task.attempts >= maxAttempts()) {
      const failureReason = await attemptsExhaustedReasonPg(sql, task, release.reason);
      const failed = await finishTaskPg(sql, task, { status: "failed", failureReason, output: null }, release.actor, release.now);
      return { row: failed, wake: principal.agent.id as string | null };
    }
    const { row, home } = await requeueTaskPg(sql, task, release);
    return { row, wake: home.agentId };
  });
  announceTasks({ agentId: wake });
  if (row.status === "failed") await indexOutcomeSafely(row);
  return toTaskDto(row);
}

export async function createTaskByWorkerPg({ principal, input }: WorkerProposal): Promise<TaskDto> {
  const row = await pgTransaction(async (sql) => {
    const now = Date.now();
    const at = new Date(now);
    const id = newId();
    const tags = [...new Set(input.tags)];
    await sql.run(
      `INSERT INTO "Task" ("id", "title", "description", "type", "tags", "priority", "status", "agentId", "createdById", "createdAt", "updatedAt")
       VALUES ($1, $2, $3, $4, $5, 0, 'offered', NULL, $6, $7, $7)`,
      [id, input.title, input.description, input.type ?? "task", JSON.stringify(tags), principal.agent.id, at],
    );
    await insertTaskEventPg(sql, proposedEvent(principal, id, now));
    await recordTaskRollupPg(sql, { kind: "created", agentId: null, at: now });
    const created = await readTaskPg(sql, id);
    if (!created) throw new Error("created task vanished");
    await appendAuditPg(sql, proposedAudit(principal, id, input.title, tags));
    return created;
  });
  return toTaskDto(row);
}

// The PostgreSQL twin of task-finish.ts (finishTaskSync, requeueTaskSync,
// attemptsExhaustedReason): the same writes, inside the caller's pgTransaction;
// their events, audit entries and the attempts' reason are built in task-finish.ts.
// What differs: the caller has read `task` with readTaskForUpdatePg (task-rows.pg.ts),
// so its row is locked and its status current; each UPDATE is still guarded by
// that status (a transition applies once, or the transaction fails); rows are
// locked in one order (the task, its agent, the day's rollup row) so concurrent
// transactions wait for each other instead of deadlocking; and the audit entry is
// written last, as appendAuditPg holds the chain's cluster-wide lock until the commit.
import "server-only";
import type { Actor } from "@/lib/audit/audit-log";
import { appendAuditPg } from "@/lib/audit/audit-log.pg";
import type { Sql } from "@/lib/pg";
import { retryBackoffMs } from "./settings";
import {
  attemptsReason,
  type Finish,
  finishAudit,
  finishEvent,
  type GiveBackEvent,
  type Home,
  type Requeue,
  requeueAudit,
  requeueEvent,
} from "./task-finish";
import type { TaskRow } from "./task-rows";
import { endOpenSessionPg, homeOfPg, insertTaskEventPg, readTaskPg, recordTaskRollupPg, refreshAgentBusyPg } from "./task-rows.pg";

/** A guarded transition touched no row: the task moved on since the caller read it. */
function moved(task: TaskRow): Error {
  return new Error(`task ${task.id} is no longer ${task.status}`);
}

/** finishTaskSync on this store; `task` is the row the caller read and locked in this transaction. */
export async function finishTaskPg(sql: Sql, task: TaskRow, finish: Finish, actor: Actor, now: number): Promise<TaskRow> {
  const at = new Date(now);
  const durationMs = task.claimedAt !== null && task.status === "in_progress" ? Math.max(0, now - task.claimedAt) : null;
  const changed = await sql.run(
    `UPDATE "Task" SET "status" = $1, "finishedAt" = $2, "updatedAt" = $2,
       "output" = COALESCE($3, "output"), "summary" = COALESCE($4, "summary"), "failureReason" = $5
     WHERE "id" = $6 AND "status" = $7`,
    [
      finish.status,
      at,
      finish.status === "cancelled" ? null : finish.output,
      finish.status === "completed" ? finish.summary : null,
      finish.status === "failed" ? finish.failureReason : finish.status === "cancelled" ? task.failureReason : null,
      task.id,
      task.status,
    ],
  );
  if (changed !== 1) throw moved(task);
  await insertTaskEventPg(sql, finishEvent(task, finish, actor, now, durationMs));
  if (task.status === "in_progress") {
    await endOpenSessionPg(sql, task.id, now, finish.status === "completed" ? finish.summary : null);
  }
  // Row locks in one order everywhere (task, agent, rollup, then the audit chain), so two finishes never deadlock.
  if (task.agentId && task.status === "in_progress") await refreshAgentBusyPg(sql, task.agentId, now);
  await recordTaskRollupPg(sql, { kind: finish.status, agentId: task.agentId, at: now, durationMs });
  const after = await readTaskPg(sql, task.id);
  if (!after) throw new Error("finished task vanished");
  await appendAuditPg(sql, finishAudit(task, finish, actor, durationMs));
  return after;
}

/** requeueTaskSync on this store: gives an in-progress task back to its agent or the pool. */
export async function requeueTaskPg(sql: Sql, task: TaskRow, requeue: Requeue): Promise<{ row: TaskRow; home: Home }> {
  const { type, now } = requeue;
  const home = await homeOfPg(sql, task);
  const retryAt = type === "released" ? now + retryBackoffMs(task.attempts) : null;
  const changed = await sql.run(
    `UPDATE "Task" SET "status" = $1, "agentId" = $2, "claimedAt" = NULL, "heartbeatAt" = NULL, "progress" = NULL, "updatedAt" = $3,
       "retryAt" = $4, "lastAgentId" = $5, "lastActivityAt" = NULL, "lastActivity" = NULL
     WHERE "id" = $6 AND "status" = $7`,
    [home.status, home.agentId, new Date(now), retryAt === null ? null : new Date(retryAt), task.agentId, task.id, task.status],
  );
  if (changed !== 1) throw moved(task);
  await endOpenSessionPg(sql, task.id, now, null);
  await insertTaskEventPg(sql, requeueEvent(task, home, requeue, retryAt));
  if (task.agentId) await refreshAgentBusyPg(sql, task.agentId, now);
  const row = await readTaskPg(sql, task.id);
  if (!row) throw new Error("requeued task vanished");
  await appendAuditPg(sql, requeueAudit(task, home, requeue));
  return { row, home };
}

/** attemptsExhaustedReason on this store. */
export async function attemptsExhaustedReasonPg(sql: Sql, task: TaskRow, lastReason: string): Promise<string> {
  const events = await sql.all<GiveBackEvent>(
    `SELECT "message", "data" FROM "TaskEvent" WHERE "taskId" = $1 AND "type" IN ('released', 'stalled') ORDER BY "id" DESC LIMIT $2`,
    [task.id, Math.max(0, task.attempts - 1)],
  );
  return attemptsReason(task, events, lastReason);
}

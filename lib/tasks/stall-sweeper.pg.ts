// The PostgreSQL twin of sweepStalledTasks (stall-sweeper.ts). The sweep runs on
// the leader instance only (registerPeriodicJob), but workers on every instance
// finish, heartbeat and give back the same tasks meanwhile. What differs: each
// stalled task moves in a transaction of its own that locks its row and checks
// again that it is still in progress and still silent (a heartbeat or a finish
// that committed first wins, and the sweep leaves the task alone); one
// transaction per task also keeps the audit chain's lock (taken last in each)
// from being held across the whole batch.
import "server-only";
import { SYSTEM_ACTOR } from "@/lib/audit/audit-log";
import { pgSql, pgTransaction } from "@/lib/pg";
import { announceTasks } from "./dispatch";
import { maxAttempts, stallTimeoutMs } from "./settings";
import { indexOutcomeSafely } from "./task-finish";
import { attemptsExhaustedReasonPg, finishTaskPg, requeueTaskPg } from "./task-finish.pg";
import type { TaskRow } from "./task-rows";
import { readTaskForUpdatePg } from "./task-rows.pg";

const BATCH = 200;

function minutes(ms: number): string {
  return ms >= 60_000 ? `${Math.round(ms / 6_000) / 10} min` : `${Math.round(ms / 100) / 10} s`;
}

type Moved = { wakes: Array<string | null>; failed: TaskRow | null } | null;

export async function sweepStalledTasksPg(now = Date.now()): Promise<{ requeued: number; failed: number }> {
  const timeout = stallTimeoutMs();
  const limit = maxAttempts();
  const cutoff = new Date(now - timeout);
  const ids = await pgSql().all<{ id: string }>(
    `SELECT "id" FROM "Task" WHERE "status" = 'in_progress' AND "heartbeatAt" < $1 ORDER BY "heartbeatAt" LIMIT $2`,
    [cutoff, BATCH],
  );
  const wakes: Array<string | null> = [];
  const failedRows: TaskRow[] = [];
  let requeued = 0;
  for (const { id } of ids) {
    const moved: Moved = await pgTransaction(async (sql) => {
      const task = await readTaskForUpdatePg(sql, id);
      // Finished, given back or heartbeating since the pick: not stalled any more.
      if (task?.status !== "in_progress" || task.heartbeatAt === null || task.heartbeatAt >= cutoff.getTime()) return null;
      const silence = `No heartbeat for ${minutes(now - task.heartbeatAt)}`;
      if (task.attempts >= limit) {
        const reason = await attemptsExhaustedReasonPg(sql, task, `${silence}: stalled`);
        const failed = await finishTaskPg(sql, task, { status: "failed", failureReason: reason, output: null }, SYSTEM_ACTOR, now);
        return { wakes: [task.agentId], failed };
      }
      const { home } = await requeueTaskPg(sql, task, {
        type: "stalled",
        reason: `${silence}: stalled`,
        action: "task.stalled",
        actor: SYSTEM_ACTOR,
        now,
      });
      return { wakes: home.agentId !== task.agentId && task.agentId ? [home.agentId, task.agentId] : [home.agentId], failed: null };
    });
    if (!moved) continue;
    wakes.push(...moved.wakes);
    if (moved.failed) failedRows.push(moved.failed);
    else requeued += 1;
  }
  for (const agentId of wakes) announceTasks({ agentId });
  for (const row of failedRows) await indexOutcomeSafely(row);
  return { requeued, failed: failedRows.length };
}

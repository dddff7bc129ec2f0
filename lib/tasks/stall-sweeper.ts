// Stalled work: an in-progress task with no heartbeat for the stall timeout goes
// back to its agent (when it was created for it) or the pool, its attempt
// counted; a task that stalls on its last allowed attempt fails with that reason.
// Safe with several app processes: each task moves under a guarded UPDATE in one
// write transaction, so only one sweep takes it.
import "server-only";
import { SYSTEM_ACTOR } from "@/lib/audit/audit-log";
import { prepare, usesPostgres, writeTransaction } from "@/lib/db";
import { registerPeriodicJob } from "@/lib/jobs/background";
import { announceTasks } from "./dispatch";
import { maxAttempts, stallSweepMs, stallTimeoutMs } from "./settings";
import { attemptsExhaustedReason, finishTaskSync, indexOutcomeSafely, requeueTaskSync } from "./task-finish";
import { readTask, type TaskRow } from "./task-rows";

const BATCH = 200;

function minutes(ms: number): string {
  return ms >= 60_000 ? `${Math.round(ms / 6_000) / 10} min` : `${Math.round(ms / 100) / 10} s`;
}

export async function sweepStalledTasks(now = Date.now()): Promise<{ requeued: number; failed: number }> {
  if (usesPostgres()) return (await import("./stall-sweeper.pg")).sweepStalledTasksPg(now);
  const timeout = stallTimeoutMs();
  const limit = maxAttempts();
  const { wakes, failedRows, requeued } = await writeTransaction((sqlite) => {
    const ids = prepare(sqlite, "SELECT id FROM Task WHERE status = 'in_progress' AND heartbeatAt < ? ORDER BY heartbeatAt LIMIT ?").all(
      now - timeout,
      BATCH,
    ) as Array<{ id: string }>;
    const wakes: Array<string | null> = [];
    const failedRows: TaskRow[] = [];
    let requeued = 0;
    for (const { id } of ids) {
      const task = readTask(sqlite, id);
      if (task?.status !== "in_progress") continue;
      const silence = `No heartbeat for ${minutes(now - (task.heartbeatAt ?? now))}`;
      if (task.attempts >= limit) {
        const reason = attemptsExhaustedReason(sqlite, task, `${silence}: stalled`);
        failedRows.push(finishTaskSync(sqlite, task, { status: "failed", failureReason: reason, output: null }, SYSTEM_ACTOR, now));
        wakes.push(task.agentId);
      } else {
        const { home } = requeueTaskSync(sqlite, task, {
          type: "stalled",
          reason: `${silence}: stalled`,
          action: "task.stalled",
          actor: SYSTEM_ACTOR,
          now,
        });
        requeued += 1;
        wakes.push(home.agentId);
        if (home.agentId !== task.agentId && task.agentId) wakes.push(task.agentId);
      }
    }
    return { wakes, failedRows, requeued };
  });
  for (const agentId of wakes) announceTasks({ agentId });
  for (const row of failedRows) await indexOutcomeSafely(row);
  return { requeued, failed: failedRows.length };
}

registerPeriodicJob({
  name: "task stall sweep",
  everyMs: stallSweepMs(),
  async run() {
    const { requeued, failed } = await sweepStalledTasks();
    if (requeued + failed > 0) console.log(`[swarmdeck] stalled tasks: ${requeued} requeued, ${failed} failed`);
  },
});

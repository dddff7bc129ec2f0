// Whether a task a worker names (the reason for a memory, a tool change) is its own
// agent's: one indexed lookup, on the hot memory-write path too.
import "server-only";
import { prepare, usesPostgres, withSqlite } from "@/lib/db";
import { ApiError } from "@/lib/errors";

/**
 * A task a worker names must be its own agent's: what it names is shown on that
 * task's page and counted with it (403 otherwise, and nothing is stored).
 */
export async function assertOwnTask(agentId: string, taskId: string | null | undefined): Promise<void> {
  if (!taskId) return;
  let owner: string | null | undefined;
  if (usesPostgres()) {
    const { pgSql } = await import("@/lib/pg");
    owner = (await pgSql().all<{ agentId: string | null }>('SELECT "agentId" FROM "Task" WHERE "id" = $1', [taskId]))[0]?.agentId;
  } else {
    owner = await withSqlite(
      (sqlite) => (prepare(sqlite, "SELECT agentId FROM Task WHERE id = ?").get(taskId) as { agentId: string | null } | undefined)?.agentId,
    );
  }
  if (owner !== agentId) throw new ApiError("forbidden", "That task is not this agent's", { taskId });
}

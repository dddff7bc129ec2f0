// The PostgreSQL twin of the database reads of getTaskBundle (bundle.ts): the task
// (held by this agent), its parent's outcome and the agent's recent lead feedback
// (recentLeadFeedbackPg of lib/memory/lead-feedback.pg.ts). The rest of
// the bundle is built from these by bundle.ts on either store. Reads only: no locks.
import "server-only";
import type { WorkerPrincipal } from "@/lib/auth/principal";
import { ApiError } from "@/lib/errors";
import type { LeadFeedback } from "@/lib/memory/lead-feedback";
import { recentLeadFeedbackPg } from "@/lib/memory/lead-feedback.pg";
import { pgSql } from "@/lib/pg";
import type { TaskRow } from "./task-rows";
import { ownTaskPg } from "./worker-tasks.pg";

type Parent = { id: string; title: string; status: string; output: string | null; failureReason: string | null };

export async function bundleRowsPg(
  principal: WorkerPrincipal,
  taskId: string,
): Promise<{ task: TaskRow; parent: Parent | null; feedback: LeadFeedback[] }> {
  const sql = pgSql();
  const task = await ownTaskPg(sql, principal, taskId, { lock: false });
  if (task.status !== "in_progress") {
    throw new ApiError("conflict", `The task is ${task.status}; a bundle is only served for a task in progress`, { status: task.status });
  }
  const parent = task.parentTaskId
    ? ((await sql.get<Parent>(`SELECT "id", "title", "status", "output", "failureReason" FROM "Task" WHERE "id" = $1`, [
        task.parentTaskId,
      ])) ?? null)
    : null;
  const feedback = await recentLeadFeedbackPg(sql, { agentId: principal.agent.id, now: Date.now() });
  return { task, parent, feedback };
}

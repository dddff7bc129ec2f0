// The PostgreSQL twin of the database reads of getTaskBundle (bundle.ts): the task
// (held by this agent), its parent's outcome and the agent's recent lead feedback
// (recentLeadFeedback of lib/memory/lead-feedback.ts, the same query). The rest of
// the bundle is built from these by bundle.ts on either store. Reads only: no locks.
import "server-only";
import type { WorkerPrincipal } from "@/lib/auth/principal";
import { ApiError } from "@/lib/errors";
import { type LeadFeedback, leadFeedbackDays } from "@/lib/memory/lead-feedback";
import { pgSql } from "@/lib/pg";
import type { TaskRow } from "./task-rows";
import { ownTaskPg } from "./worker-tasks.pg";

type Parent = { id: string; title: string; status: string; output: string | null; failureReason: string | null };

/** As many items as recentLeadFeedback gives (lib/memory/lead-feedback.ts). */
const MAX_FEEDBACK = 5;

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
  const now = Date.now();
  const feedback = await sql.all<LeadFeedback>(
    `SELECT "id", "name", "content", "scope", "createdAt" FROM "Memory"
     WHERE "source" = 'lead_feedback' AND "createdAt" >= $1 AND "archivedAt" IS NULL AND "supersededById" IS NULL
       AND ("expiresAt" IS NULL OR "expiresAt" > $2) AND (("scope" = 'agent' AND "agentId" = $3) OR "scope" = 'swarm')
     ORDER BY "createdAt" DESC, "id" DESC LIMIT $4`,
    [new Date(now - leadFeedbackDays() * 86_400_000), new Date(now), principal.agent.id, MAX_FEEDBACK],
  );
  return { task, parent, feedback };
}

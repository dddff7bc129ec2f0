// The PostgreSQL twin of planRun in targets.ts: the same recipients and skips, read
// through a `Sql` inside the firing's transaction. What differs: a capability tag
// is matched with jsonb_array_elements_text instead of SQLite's json_each, and
// names are ordered bytewise (COLLATE "C"), as SQLite's BINARY collation orders them.
import "server-only";
import type { Sql } from "@/lib/pg";
import { type AgentRow, noMatchPlan, planAgent, poolPlan, type RunPlan, type TargetedSchedule } from "./targets";

const OPEN = "('unassigned', 'offered', 'pending', 'in_progress')";
const BY_NAME = `ORDER BY "name" COLLATE "C"`;

async function agentsOf(sql: Sql, schedule: TargetedSchedule): Promise<AgentRow[] | string> {
  const base = `SELECT "id", "name", "lastSeenAt" FROM "Agent" WHERE "archivedAt" IS NULL`;
  switch (schedule.targetKind) {
    case "agent": {
      const agent = await sql.get<AgentRow>(`${base} AND "id" = $1`, [schedule.agentId]);
      return agent ? [agent] : "The target agent is archived or deleted; no task was created";
    }
    case "leads":
      return sql.all<AgentRow>(`${base} AND "role" = 'lead' ${BY_NAME}`);
    case "all":
      return sql.all<AgentRow>(`${base} ${BY_NAME}`);
    case "role":
      return sql.all<AgentRow>(`${base} AND "role" = $1 ${BY_NAME}`, [schedule.targetValue]);
    case "tag":
      return sql.all<AgentRow>(
        `${base} AND EXISTS (SELECT 1 FROM jsonb_array_elements_text(
           CASE WHEN jsonb_typeof("Agent"."capabilities"::jsonb) = 'array' THEN "Agent"."capabilities"::jsonb ELSE '[]'::jsonb END) AS c(value)
         WHERE c.value = $1) ${BY_NAME}`,
        [schedule.targetValue],
      );
    default:
      return [];
  }
}

export async function planRunPg(sql: Sql, schedule: TargetedSchedule, seenNow: number): Promise<RunPlan> {
  const openTask = (agentId: string | null) =>
    agentId === null
      ? sql.get<{ id: string; status: string }>(
          `SELECT "id", "status" FROM "Task" WHERE "scheduleId" = $1 AND "agentId" IS NULL AND "status" IN ${OPEN} LIMIT 1`,
          [schedule.id],
        )
      : sql.get<{ id: string; status: string }>(
          `SELECT "id", "status" FROM "Task" WHERE "scheduleId" = $1 AND "agentId" = $2 AND "status" IN ${OPEN} LIMIT 1`,
          [schedule.id, agentId],
        );

  if (schedule.targetKind === "pool") return poolPlan(await openTask(null));
  const agents = await agentsOf(sql, schedule);
  if (typeof agents === "string") return { recipients: [], skips: [], error: agents };
  if (agents.length === 0) return noMatchPlan(schedule);
  const plan: RunPlan = { recipients: [], skips: [], error: null };
  for (const agent of agents) planAgent(plan, agent, await openTask(agent.id), seenNow);
  return plan;
}

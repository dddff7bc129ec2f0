// The PostgreSQL twin of the two raw reads of swarm-view.ts (the rest of that file
// goes through modules that have their own twins).
import "server-only";
import { pgSql } from "@/lib/pg";

/** An active agent by id or name (resolveAgentRef of swarm-view.ts). */
export function findAgentRefPg(ref: string): Promise<{ id: string; name: string } | undefined> {
  return pgSql().get<{ id: string; name: string }>(
    `SELECT "id", "name" FROM "Agent" WHERE ("id" = $1 OR "name" = $1) AND "archivedAt" IS NULL ORDER BY ("id" = $1) DESC LIMIT 1`,
    [ref],
  );
}

/** Open tasks per agent and status (leadListAgents of swarm-view.ts). */
export function openTaskCountsPg(): Promise<Array<{ agentId: string; status: string; n: number }>> {
  return pgSql().all<{ agentId: string; status: string; n: number }>(
    `SELECT "agentId", "status", count(*) AS "n" FROM "Task"
     WHERE "agentId" IS NOT NULL AND "status" IN ('offered', 'pending', 'in_progress') GROUP BY "agentId", "status"`,
  );
}

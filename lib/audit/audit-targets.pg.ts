// The PostgreSQL twin of describeTargets in audit-targets.ts: the same batched
// lookups through lib/pg.ts (async, `= ANY($1)` instead of a list of `?`), then the
// same labelling (labelTargets). Memory ids beyond int4 cannot exist, so they are
// left out of the lookup instead of overflowing it.
import "server-only";
import type { AuditTarget } from "@/lib/contracts/audit";
import type { Sql } from "@/lib/pg";
import { type AuditTargetRow, labelTargets, targetIds } from "./audit-targets";

const INT4_MAX = 2_147_483_647;

/** Runs a fixed lookup (never SQL from a request) for the given ids, bound as one array parameter. */
async function lookup<T extends Record<string, unknown>>(sql: Sql, text: string, ids: (string | number)[]): Promise<Map<string, T>> {
  const unique = [...new Set(ids)];
  const found = new Map<string, T>();
  if (!unique.length) return found;
  const rows = await sql.all<T & { id: string | number }>(text, [unique]);
  for (const row of rows) found.set(String(row.id), row);
  return found;
}

export async function describeTargetsPg(sql: Sql, rows: AuditTargetRow[]): Promise<Map<number, AuditTarget>> {
  const { ids, agentIds, memoryIds } = targetIds(rows);
  const [agents, tasks, schedules, users, tools, proposals, memories] = await Promise.all([
    lookup<{ name: string }>(sql, 'SELECT "id", "name" FROM "Agent" WHERE "id" = ANY($1::text[])', agentIds),
    lookup<{ title: string }>(sql, 'SELECT "id", "title" FROM "Task" WHERE "id" = ANY($1::text[])', ids("task")),
    lookup<{ name: string }>(sql, 'SELECT "id", "name" FROM "Schedule" WHERE "id" = ANY($1::text[])', ids("schedule")),
    lookup<{ email: string }>(sql, 'SELECT "id", "email" FROM "User" WHERE "id" = ANY($1::text[])', ids("user")),
    lookup<{ name: string }>(sql, 'SELECT "id", "name" FROM "AgentTool" WHERE "id" = ANY($1::text[])', ids("agent_tool")),
    lookup<{ kind: string }>(sql, 'SELECT "id", "kind" FROM "IdentityProposal" WHERE "id" = ANY($1::text[])', ids("identity_proposal")),
    lookup<{ name: string }>(
      sql,
      'SELECT "id", "name" FROM "Memory" WHERE "id" = ANY($1::int[])',
      memoryIds.filter((id) => id >= -INT4_MAX - 1 && id <= INT4_MAX),
    ),
  ]);
  return labelTargets(rows, { agents, tasks, schedules, users, tools, proposals, memories });
}

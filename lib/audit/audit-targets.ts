// What an audit row is about, as a person reads it: a name instead of a raw id, and
// the page where that thing lives. Resolved in a few batched lookups per page of
// events; a target that no longer exists keeps its type and short id, unlinked.
import "server-only";
import type Database from "better-sqlite3";
import type { AuditTarget } from "@/lib/contracts/audit";
import { IDENTITY_FILE_NAMES, type IdentityKind } from "@/lib/contracts/identity";

export type AuditTargetRow = { id: number; targetType: string | null; targetId: string | null; agentId: string | null; data: unknown };

/** Runs a fixed lookup (never SQL from a request) for the given ids, bound as parameters. */
function lookup<T extends Record<string, unknown>>(sqlite: Database.Database, sql: string, ids: string[]): Map<string, T> {
  const unique = [...new Set(ids)];
  const found = new Map<string, T>();
  // SQLite allows 32k parameters; a page holds at most 200 rows.
  if (!unique.length) return found;
  const rows = sqlite.prepare(sql.replace("@ids", unique.map(() => "?").join(","))).all(...unique) as (T & { id: string })[];
  for (const row of rows) found.set(row.id, row);
  return found;
}

const short = (id: string) => (id.length > 10 ? `${id.slice(0, 8)}…` : id);
const kindLabel = (kind: string | undefined) =>
  kind && kind in IDENTITY_FILE_NAMES ? IDENTITY_FILE_NAMES[kind as IdentityKind] : (kind ?? "identity file");

export function describeTargets(sqlite: Database.Database, rows: AuditTargetRow[]): Map<number, AuditTarget> {
  const { ids, agentIds, memoryIds } = targetIds(rows);
  const agents = lookup<{ name: string }>(sqlite, "SELECT id, name FROM Agent WHERE id IN (@ids)", agentIds);
  const tasks = lookup<{ title: string }>(sqlite, "SELECT id, title FROM Task WHERE id IN (@ids)", ids("task"));
  const schedules = lookup<{ name: string }>(sqlite, "SELECT id, name FROM Schedule WHERE id IN (@ids)", ids("schedule"));
  const users = lookup<{ email: string }>(sqlite, 'SELECT id, email FROM "User" WHERE id IN (@ids)', ids("user"));
  const tools = lookup<{ name: string }>(sqlite, "SELECT id, name FROM AgentTool WHERE id IN (@ids)", ids("agent_tool"));
  const proposals = lookup<{ kind: string }>(sqlite, "SELECT id, kind FROM IdentityProposal WHERE id IN (@ids)", ids("identity_proposal"));
  const memories = new Map(
    (memoryIds.length
      ? (sqlite.prepare(`SELECT id, name FROM Memory WHERE id IN (${memoryIds.map(() => "?").join(",")})`).all(...memoryIds) as {
          id: number;
          name: string;
        }[])
      : []
    ).map((row) => [String(row.id), row]),
  );
  return labelTargets(rows, { agents, tasks, schedules, users, tools, proposals, memories });
}

/** The ids a page of rows refers to, by target type (shared with audit-targets.pg.ts). */
export function targetIds(rows: AuditTargetRow[]) {
  const ids = (type: string) => rows.filter((row) => row.targetType === type && row.targetId).map((row) => row.targetId as string);
  const agentIds = [...rows.map((row) => row.agentId).filter((id): id is string => Boolean(id)), ...ids("agent")];
  const memoryIds = [...new Set(ids("memory").map(Number).filter(Number.isSafeInteger))];
  return { ids, agentIds, memoryIds };
}

export type TargetLookups = {
  agents: Map<string, { name: string }>;
  tasks: Map<string, { title: string }>;
  schedules: Map<string, { name: string }>;
  users: Map<string, { email: string }>;
  tools: Map<string, { name: string }>;
  proposals: Map<string, { kind: string }>;
  memories: Map<string, { name: string }>;
};

/** Labels and links for each row from what the lookups found (shared with audit-targets.pg.ts). */
export function labelTargets(
  rows: AuditTargetRow[],
  { agents, tasks, schedules, users, tools, proposals, memories }: TargetLookups,
): Map<number, AuditTarget> {
  const described = new Map<number, AuditTarget>();
  for (const row of rows) {
    const agentName = row.agentId ? (agents.get(row.agentId)?.name ?? null) : null;
    const id = row.targetId ?? "";
    const data = (row.data && typeof row.data === "object" ? row.data : {}) as Record<string, unknown>;
    const agentPage = row.agentId && agentName ? `/agents/${row.agentId}` : null;
    let label: string | null = null;
    let href: string | null = null;
    switch (row.targetType) {
      case "agent": {
        const name = agents.get(id)?.name;
        label = name ?? null;
        href = name ? `/agents/${id}` : null;
        break;
      }
      case "task": {
        const title = tasks.get(id)?.title;
        label = title ?? null;
        href = title ? `/tasks/${id}` : null;
        break;
      }
      case "schedule": {
        const name = schedules.get(id)?.name;
        label = name ?? null;
        href = name ? `/schedules/${id}` : null;
        break;
      }
      case "user":
        label = users.get(id)?.email ?? null;
        href = label ? "/settings" : null;
        break;
      case "agent_tool": {
        const name = tools.get(id)?.name ?? (typeof data.name === "string" ? data.name : null);
        label = name ? `${agentName ? `${agentName}'s ` : ""}tool ${name}` : null;
        href = agentPage ? `${agentPage}?tab=tools` : null;
        break;
      }
      case "builtin_tool_change":
        label = `${agentName ? `${agentName}'s ` : ""}change to ${typeof data.name === "string" ? data.name : "a built-in tool"}`;
        href = agentPage ? `${agentPage}?tab=tools` : null;
        break;
      case "identity_proposal": {
        const kind = proposals.get(id)?.kind ?? (typeof data.kind === "string" ? data.kind : undefined);
        label = `proposal for ${agentName ? `${agentName}'s ` : ""}${kindLabel(kind)}`;
        href = "/proposals";
        break;
      }
      case "identity_file":
      case "identity_version": {
        const kind = typeof data.kind === "string" ? data.kind : undefined;
        label = `${agentName ? `${agentName}'s ` : ""}${kindLabel(kind)}`;
        href = agentPage ? `${agentPage}/identity` : null;
        break;
      }
      case "memory":
        label = memories.get(id)?.name ?? null;
        href = label ? "/memory" : null;
        break;
      case "worker_token":
        label = `worker token${agentName ? ` of ${agentName}` : ""}`;
        href = agentPage;
        break;
      case "api_token":
        label = "operator API token";
        href = "/settings";
        break;
      case "config":
        label = "swarm settings";
        href = "/settings";
        break;
      case "alert":
        label = `failure-rate alert${agentName ? ` for ${agentName}` : ""}`;
        href = "/metrics";
        break;
    }
    described.set(row.id, {
      label: label ?? (row.targetType ? `${row.targetType.replace(/_/g, " ")} ${short(id)}` : null),
      href,
      agentName,
    });
  }
  return described;
}

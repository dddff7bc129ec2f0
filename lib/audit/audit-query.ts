// Reading the audit log: newest first, a keyset cursor (`before` = an id), and
// filters. An action filter matches the action or its dotted family:
// "agent" finds agent.created and agent.updated; "agent.created" only itself.
import "server-only";
import type { AuditEventDto } from "@/lib/contracts/audit";
import { prepare, usesPostgres, withSqlite } from "@/lib/db";
import { describeTargets } from "./audit-targets";

type Row = Omit<AuditEventDto, "createdAt" | "data" | "target"> & { createdAt: number; data: string };

/** The stored JSON of an event (shared with audit-query.pg.ts). */
export function parseAuditData(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    return data;
  }
}

export async function listAuditEvents(filter: {
  limit: number;
  before?: number;
  action?: string;
  agentId?: string;
  targetId?: string;
}): Promise<{ events: AuditEventDto[]; nextBefore: number | null }> {
  if (usesPostgres()) return (await import("./audit-query.pg")).listAuditEventsPg(filter);
  const clauses: string[] = [];
  const args: Record<string, unknown> = { limit: filter.limit + 1 };
  if (filter.before !== undefined) {
    clauses.push("id < @before");
    args.before = filter.before;
  }
  if (filter.action) {
    clauses.push("(action = @action OR substr(action, 1, length(@action) + 1) = @action || '.')");
    args.action = filter.action;
  }
  if (filter.agentId) {
    clauses.push("agentId = @agentId");
    args.agentId = filter.agentId;
  }
  if (filter.targetId) {
    clauses.push("targetId = @targetId");
    args.targetId = filter.targetId;
  }
  const sql = `SELECT id, createdAt, actorType, actorId, actorLabel, action, targetType, targetId, agentId, data, hash
    FROM AuditEvent ${clauses.length ? `WHERE ${clauses.join(" AND ")}` : ""} ORDER BY id DESC LIMIT @limit`;
  const { page, more, targets } = await withSqlite((sqlite) => {
    const rows = prepare(sqlite, sql).all(args) as Row[];
    const more = rows.length > filter.limit;
    const page = (more ? rows.slice(0, filter.limit) : rows).map((row) => ({ ...row, data: parseAuditData(row.data) }));
    return { page, more, targets: describeTargets(sqlite, page) };
  });
  return {
    events: page.map((row) => ({
      ...row,
      createdAt: new Date(row.createdAt).toISOString(),
      target: targets.get(row.id) ?? { label: null, href: null, agentName: null },
    })),
    nextBefore: more ? (page.at(-1)?.id ?? null) : null,
  };
}

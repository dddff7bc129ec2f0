// Reading the audit log: newest first, a keyset cursor (`before` = an id), and
// filters. An action filter matches the action or its dotted family:
// "agent" finds agent.created and agent.updated; "agent.created" only itself.
import "server-only";
import type { AuditEventDto, AuditTarget } from "@/lib/contracts/audit";
import { prepare, usesPostgres, withSqlite } from "@/lib/db";
import { describeTargets } from "./audit-targets";

/** An AuditEvent row as read (both stores). */
export type AuditRow = Omit<AuditEventDto, "createdAt" | "data" | "target"> & { createdAt: number; data: string };

export type AuditFilter = {
  limit: number;
  before?: number;
  action?: string;
  agentId?: string;
  targetId?: string;
};

/** The stored JSON of an event. */
export function parseAuditData(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    return data;
  }
}

/** The page of a read of `limit` + 1 rows, their data parsed, and whether more follow (both stores). */
export function auditPage(rows: AuditRow[], limit: number) {
  const more = rows.length > limit;
  const page = (more ? rows.slice(0, limit) : rows).map((row) => ({ ...row, data: parseAuditData(row.data) }));
  return { page, more };
}

/** The answer for a page, with its events' targets described (both stores). */
export function auditEvents(
  { page, more }: ReturnType<typeof auditPage>,
  targets: Map<number, AuditTarget>,
): { events: AuditEventDto[]; nextBefore: number | null } {
  return {
    events: page.map((row) => ({
      ...row,
      createdAt: new Date(row.createdAt).toISOString(),
      target: targets.get(row.id) ?? { label: null, href: null, agentName: null },
    })),
    nextBefore: more ? (page.at(-1)?.id ?? null) : null,
  };
}

export async function listAuditEvents(filter: AuditFilter): Promise<{ events: AuditEventDto[]; nextBefore: number | null }> {
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
  const { read, targets } = await withSqlite((sqlite) => {
    const read = auditPage(prepare(sqlite, sql).all(args) as AuditRow[], filter.limit);
    return { read, targets: describeTargets(sqlite, read.page) };
  });
  return auditEvents(read, targets);
}

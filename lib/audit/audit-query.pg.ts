// The PostgreSQL twin of listAuditEvents in audit-query.ts: the same keyset page
// (newest first, `before` = an id) and filters, written for PostgreSQL ($n
// parameters, quoted identifiers); the targets are described by audit-targets.pg.ts.
import "server-only";
import type { AuditEventDto } from "@/lib/contracts/audit";
import { pgSql } from "@/lib/pg";
import { type AuditFilter, type AuditRow, auditEvents, auditPage } from "./audit-query";
import { describeTargetsPg } from "./audit-targets.pg";

const INT4_MAX = 2_147_483_647;

export async function listAuditEventsPg(filter: AuditFilter): Promise<{ events: AuditEventDto[]; nextBefore: number | null }> {
  const clauses: string[] = [];
  const params: unknown[] = [];
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  if (filter.before !== undefined) {
    // Ids are int4: every id is below a `before` past that range.
    if (filter.before <= INT4_MAX) clauses.push(`"id" < ${param(filter.before)}`);
  }
  if (filter.action) {
    const action = param(filter.action);
    clauses.push(`("action" = ${action} OR left("action", length(${action}) + 1) = ${action} || '.')`);
  }
  if (filter.agentId) clauses.push(`"agentId" = ${param(filter.agentId)}`);
  if (filter.targetId) clauses.push(`"targetId" = ${param(filter.targetId)}`);
  const limit = param(filter.limit + 1);
  const sql = pgSql();
  const rows = await sql.all<AuditRow>(
    `SELECT "id", "createdAt", "actorType", "actorId", "actorLabel", "action", "targetType", "targetId", "agentId", "data", "hash"
     FROM "AuditEvent" ${clauses.length ? `WHERE ${clauses.join(" AND ")}` : ""} ORDER BY "id" DESC LIMIT ${limit}`,
    params,
  );
  const read = auditPage(rows, filter.limit);
  return auditEvents(read, await describeTargetsPg(sql, read.page));
}

// The PostgreSQL twin of identity-metrics.ts: the same reads (identifiers quoted,
// times compared as timestamptz), the answers built by that file's shared helpers.
// Booleans (deleted, edited) come back true/false; the helpers read them as truthy.
import "server-only";
import { notFound } from "@/lib/errors";
import { pgSql } from "@/lib/pg";
import {
  type FullVersion,
  type OutcomeRow,
  proposalDecisionsFrom,
  type SoulVersionRow,
  soulOutcomesFrom,
  TIMELINE_LIMIT,
  timelineFrom,
  type VersionRow,
  versionWithParentFrom,
} from "./identity-metrics";
import type { DayRange } from "./range";
import { agentNamesPg } from "./task-metrics.pg";

const VERSION_COLUMNS = `"id", "agentId", "kind", "number", "source", "authorType", "reason", "size", "deleted", "createdAt"`;

export async function getIdentityTimelinePg({ range, agentId }: { range: DayRange; agentId?: string }) {
  const sql = pgSql();
  const start = new Date(range.startMs);
  const end = new Date(range.endMs);
  const rows = agentId
    ? await sql.all<VersionRow>(
        `SELECT ${VERSION_COLUMNS} FROM "IdentityVersion" WHERE "agentId" = $1 AND "createdAt" >= $2 AND "createdAt" < $3
         ORDER BY "createdAt" DESC, "id" DESC LIMIT ${TIMELINE_LIMIT + 1}`,
        [agentId, start, end],
      )
    : await sql.all<VersionRow>(
        `SELECT ${VERSION_COLUMNS} FROM "IdentityVersion" WHERE "createdAt" >= $1 AND "createdAt" < $2
         ORDER BY "createdAt" DESC, "id" DESC LIMIT ${TIMELINE_LIMIT + 1}`,
        [start, end],
      );
  return timelineFrom(range, rows, await agentNamesPg(sql));
}

export async function getVersionWithParentPg({ versionId }: { versionId: string }) {
  const sql = pgSql();
  const select = `SELECT ${VERSION_COLUMNS}, "content", "parentVersionId" FROM "IdentityVersion"`;
  const version = await sql.get<FullVersion>(`${select} WHERE "id" = $1`, [versionId]);
  if (!version) throw notFound("Identity version");
  // The parent is the version it was written on top of; without one, the file's previous number.
  const parent = version.parentVersionId
    ? await sql.get<FullVersion>(`${select} WHERE "id" = $1`, [version.parentVersionId])
    : await sql.get<FullVersion>(`${select} WHERE "agentId" = $1 AND "kind" = $2 AND "number" = $3`, [
        version.agentId,
        version.kind,
        version.number - 1,
      ]);
  return versionWithParentFrom(version, parent, await agentNamesPg(sql));
}

export async function getSoulOutcomesPg({ agentId, range }: { agentId: string; range?: DayRange }) {
  const sql = pgSql();
  const agent = await sql.get('SELECT "id" FROM "Agent" WHERE "id" = $1', [agentId]);
  if (!agent) throw notFound("Agent");
  const versions = await sql.all<SoulVersionRow>(
    `SELECT "id", "number", "source", "authorType", "reason", "createdAt" FROM "IdentityVersion" WHERE "agentId" = $1 AND "kind" = 'SOUL' ORDER BY "number"`,
    [agentId],
  );
  const tasks = range
    ? await sql.all<OutcomeRow>(
        `SELECT "soulVersionId", "status", "claimedAt", "finishedAt" FROM "Task"
         WHERE "agentId" = $1 AND "finishedAt" >= $2 AND "finishedAt" < $3 AND "status" IN ('completed', 'failed')`,
        [agentId, new Date(range.startMs), new Date(range.endMs)],
      )
    : await sql.all<OutcomeRow>(
        `SELECT "soulVersionId", "status", "claimedAt", "finishedAt" FROM "Task"
         WHERE "agentId" = $1 AND "finishedAt" IS NOT NULL AND "status" IN ('completed', 'failed')`,
        [agentId],
      );
  return soulOutcomesFrom(agentId, versions, tasks);
}

export async function getProposalDecisionsPg({ range, agentId }: { range: DayRange; agentId?: string }) {
  const sql = pgSql();
  const base = `SELECT "decidedAt", "status", "edited" FROM "IdentityProposal" WHERE "decidedAt" >= $1 AND "decidedAt" < $2 AND "status" IN ('approved', 'rejected')`;
  const window = [new Date(range.startMs), new Date(range.endMs)];
  const rows = agentId
    ? await sql.all<{ decidedAt: number; status: string; edited: boolean }>(`${base} AND "agentId" = $3`, [...window, agentId])
    : await sql.all<{ decidedAt: number; status: string; edited: boolean }>(base, window);
  const pending = agentId
    ? await sql.get<{ n: number }>(`SELECT count(*) AS "n" FROM "IdentityProposal" WHERE "status" = 'pending' AND "agentId" = $1`, [
        agentId,
      ])
    : await sql.get<{ n: number }>(`SELECT count(*) AS "n" FROM "IdentityProposal" WHERE "status" = 'pending'`);
  return proposalDecisionsFrom(range, rows, pending?.n ?? 0);
}

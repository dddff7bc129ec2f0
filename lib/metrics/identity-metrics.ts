// Identity evolution: the timeline of versions, one version beside its parent
// (for the diff dialog), outcomes per SOUL.md version, and proposal decisions.
import "server-only";
import { prepare, usesPostgres, withSqlite } from "@/lib/db";
import { notFound } from "@/lib/errors";
import type { DayRange } from "./range";
import { utcDay } from "./rollup-day";
import { agentNames, rate } from "./task-metrics";

export const TIMELINE_LIMIT = 2000;

export type VersionRow = {
  id: string;
  agentId: string;
  kind: string;
  number: number;
  source: string;
  authorType: string;
  reason: string | null;
  size: number;
  deleted: number | boolean;
  createdAt: number;
};

const VERSION_COLUMNS = "id, agentId, kind, number, source, authorType, reason, size, deleted, createdAt";

/** GET /api/v1/metrics/identity: versions per file per agent in the range, newest last. */
export async function getIdentityTimeline({ range, agentId }: { range: DayRange; agentId?: string }) {
  if (usesPostgres()) return (await import("./identity-metrics.pg")).getIdentityTimelinePg({ range, agentId });
  return withSqlite((sqlite) => {
    const rows = (
      agentId
        ? prepare(
            sqlite,
            `SELECT ${VERSION_COLUMNS} FROM IdentityVersion WHERE agentId = ? AND createdAt >= ? AND createdAt < ? ORDER BY createdAt DESC LIMIT ${TIMELINE_LIMIT + 1}`,
          ).all(agentId, range.startMs, range.endMs)
        : prepare(
            sqlite,
            `SELECT ${VERSION_COLUMNS} FROM IdentityVersion WHERE createdAt >= ? AND createdAt < ? ORDER BY createdAt DESC LIMIT ${TIMELINE_LIMIT + 1}`,
          ).all(range.startMs, range.endMs)
    ) as VersionRow[];
    return timelineFrom(range, rows, agentNames(sqlite));
  });
}

/** The timeline answer from its rows, newest first (shared with identity-metrics.pg.ts). */
export function timelineFrom(range: DayRange, rows: VersionRow[], names: Map<string, string>) {
  const truncated = rows.length > TIMELINE_LIMIT;
  const versions = rows
    .slice(0, TIMELINE_LIMIT)
    .reverse()
    .map((row) => ({
      ...row,
      deleted: Boolean(row.deleted),
      agentName: names.get(row.agentId) ?? "(deleted agent)",
      createdAt: new Date(row.createdAt).toISOString(),
    }));
  const bySource: Record<string, number> = {};
  for (const version of versions) bySource[version.source] = (bySource[version.source] ?? 0) + 1;
  return { range: { from: range.from, to: range.to, days: range.days.length }, versions, bySource, truncated };
}

export type FullVersion = VersionRow & { content: string; parentVersionId: string | null };

/** GET /api/v1/metrics/identity/versions/{id}: a version and its parent's content, for a diff. */
export async function getVersionWithParent({ versionId }: { versionId: string }) {
  if (usesPostgres()) return (await import("./identity-metrics.pg")).getVersionWithParentPg({ versionId });
  return withSqlite((sqlite) => {
    const select = prepare(sqlite, `SELECT ${VERSION_COLUMNS}, content, parentVersionId FROM IdentityVersion WHERE id = ?`);
    const version = select.get(versionId) as FullVersion | undefined;
    if (!version) throw notFound("Identity version");
    // The parent is the version it was written on top of; without one, the file's previous number.
    const parent = (
      version.parentVersionId
        ? select.get(version.parentVersionId)
        : prepare(
            sqlite,
            `SELECT ${VERSION_COLUMNS}, content, parentVersionId FROM IdentityVersion WHERE agentId = ? AND kind = ? AND number = ?`,
          ).get(version.agentId, version.kind, version.number - 1)
    ) as FullVersion | undefined;
    return versionWithParentFrom(version, parent, agentNames(sqlite));
  });
}

/** A version and its parent as answered (shared with identity-metrics.pg.ts). */
export function versionWithParentFrom(version: FullVersion, parent: FullVersion | undefined, names: Map<string, string>) {
  const dto = (row: FullVersion) => ({
    id: row.id,
    agentId: row.agentId,
    kind: row.kind,
    number: row.number,
    source: row.source,
    authorType: row.authorType,
    reason: row.reason,
    deleted: Boolean(row.deleted),
    content: row.content,
    createdAt: new Date(row.createdAt).toISOString(),
  });
  return { agentName: names.get(version.agentId) ?? "(deleted agent)", version: dto(version), parent: parent ? dto(parent) : null };
}

export type OutcomeRow = { soulVersionId: string | null; status: string; claimedAt: number | null; finishedAt: number | null };

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const upper = sorted[middle] ?? 0;
  return sorted.length % 2 ? upper : ((sorted[middle - 1] ?? upper) + upper) / 2;
}

/**
 * GET /api/v1/metrics/soul-outcomes?agentId=: success rate and duration of the
 * agent's finished tasks under each SOUL.md version (the version the task was
 * claimed under), each compared with the version before it. Durations are
 * claimedAt → finishedAt of completed tasks; the median here is exact.
 */
export async function getSoulOutcomes({ agentId, range }: { agentId: string; range?: DayRange }) {
  if (usesPostgres()) return (await import("./identity-metrics.pg")).getSoulOutcomesPg({ agentId, range });
  return withSqlite((sqlite) => {
    const agent = prepare(sqlite, "SELECT id FROM Agent WHERE id = ?").get(agentId);
    if (!agent) throw notFound("Agent");
    const versions = prepare(
      sqlite,
      "SELECT id, number, source, authorType, reason, createdAt FROM IdentityVersion WHERE agentId = ? AND kind = 'SOUL' ORDER BY number",
    ).all(agentId) as SoulVersionRow[];
    const tasks = (
      range
        ? prepare(
            sqlite,
            "SELECT soulVersionId, status, claimedAt, finishedAt FROM Task WHERE agentId = ? AND finishedAt >= ? AND finishedAt < ? AND status IN ('completed', 'failed')",
          ).all(agentId, range.startMs, range.endMs)
        : prepare(
            sqlite,
            "SELECT soulVersionId, status, claimedAt, finishedAt FROM Task WHERE agentId = ? AND finishedAt IS NOT NULL AND status IN ('completed', 'failed')",
          ).all(agentId)
    ) as OutcomeRow[];
    return soulOutcomesFrom(agentId, versions, tasks);
  });
}

export type SoulVersionRow = { id: string; number: number; source: string; authorType: string; reason: string | null; createdAt: number };

/** Outcomes per SOUL.md version from the versions and the finished tasks (shared with identity-metrics.pg.ts). */
export function soulOutcomesFrom(agentId: string, versions: SoulVersionRow[], tasks: OutcomeRow[]) {
  type Bucket = { completed: number; failed: number; durations: number[] };
  const buckets = new Map<string, Bucket>();
  for (const task of tasks) {
    const key = task.soulVersionId ?? "";
    const bucket = buckets.get(key) ?? { completed: 0, failed: 0, durations: [] };
    if (task.status === "completed") {
      bucket.completed += 1;
      if (task.claimedAt !== null && task.finishedAt !== null) bucket.durations.push(task.finishedAt - task.claimedAt);
    } else bucket.failed += 1;
    buckets.set(key, bucket);
  }

  const rows = [
    ...(buckets.has("")
      ? [{ id: null, number: 0, source: "none", authorType: "", reason: "Tasks run before any SOUL.md", createdAt: null }]
      : []),
    ...versions.map((version) => ({ ...version, createdAt: new Date(version.createdAt).toISOString() as string | null })),
  ].map((version) => {
    const bucket = buckets.get(version.id ?? "") ?? { completed: 0, failed: 0, durations: [] };
    const total = bucket.completed + bucket.failed;
    return {
      versionId: version.id,
      number: version.number,
      source: version.source,
      authorType: version.authorType,
      reason: version.reason,
      createdAt: version.createdAt,
      tasks: total,
      completed: bucket.completed,
      failed: bucket.failed,
      successRate: rate(bucket.completed, total),
      meanMs: bucket.durations.length ? bucket.durations.reduce((a, b) => a + b, 0) / bucket.durations.length : null,
      medianMs: median(bucket.durations),
    };
  });
  // Before/after: each version against the closest earlier version that ran tasks.
  let previous: (typeof rows)[number] | null = null;
  const withDelta = rows.map((row) => {
    const delta = {
      previousVersionId: previous?.versionId ?? null,
      successRateChange:
        previous && row.successRate !== null && previous.successRate !== null ? row.successRate - previous.successRate : null,
      medianMsChange: previous && row.medianMs !== null && previous.medianMs !== null ? row.medianMs - previous.medianMs : null,
    };
    if (row.tasks > 0) previous = row;
    return { ...row, ...delta };
  });
  return { agentId, versions: withDelta };
}

/** GET /api/v1/metrics/proposals: decisions per day (approved as proposed, approved with edits, rejected). */
export async function getProposalDecisions({ range, agentId }: { range: DayRange; agentId?: string }) {
  if (usesPostgres()) return (await import("./identity-metrics.pg")).getProposalDecisionsPg({ range, agentId });
  return withSqlite((sqlite) => {
    const sql = `SELECT decidedAt, status, edited FROM IdentityProposal WHERE decidedAt >= ? AND decidedAt < ? AND status IN ('approved', 'rejected')`;
    const rows = (
      agentId
        ? prepare(sqlite, `${sql} AND agentId = ?`).all(range.startMs, range.endMs, agentId)
        : prepare(sqlite, sql).all(range.startMs, range.endMs)
    ) as Array<{ decidedAt: number; status: string; edited: number }>;
    const pending = (
      agentId
        ? prepare(sqlite, "SELECT count(*) AS n FROM IdentityProposal WHERE status = 'pending' AND agentId = ?").get(agentId)
        : prepare(sqlite, "SELECT count(*) AS n FROM IdentityProposal WHERE status = 'pending'").get()
    ) as { n: number };
    return proposalDecisionsFrom(range, rows, pending.n);
  });
}

/** Decisions per day (shared with identity-metrics.pg.ts). */
export function proposalDecisionsFrom(
  range: DayRange,
  rows: Array<{ decidedAt: number; status: string; edited: number | boolean }>,
  pendingCount: number,
) {
  const byDay = new Map(range.days.map((day) => [day, { day, approved: 0, edited: 0, rejected: 0 }]));
  const totals = { approved: 0, edited: 0, rejected: 0, pending: pendingCount };
  for (const row of rows) {
    const point = byDay.get(utcDay(row.decidedAt));
    const key = row.status === "rejected" ? "rejected" : row.edited ? "edited" : "approved";
    if (point) point[key] += 1;
    totals[key] += 1;
  }
  return { range: { from: range.from, to: range.to, days: range.days.length }, totals, series: [...byDay.values()] };
}

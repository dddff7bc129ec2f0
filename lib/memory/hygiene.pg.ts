// The PostgreSQL twin of hygiene.ts: the same expiry sweep, near-duplicate flags
// and merges, and session-summary budget. What differs: the background job runs
// it on the leader only (jobs.ts), but `POST /api/v1/memories/hygiene` may run it
// on any instance at the same time, so a run holds a cluster-wide advisory lock
// (a second run waits for the first, then does what is left), and each merge or
// archive re-checks its rows under row locks. It also prunes the change log
// the instances' vector indexes read (search-index.pg.ts).
import "server-only";
import { SYSTEM_ACTOR } from "@/lib/audit/audit-log";
import { appendAuditPg } from "@/lib/audit/audit-log.pg";
import { pgPool, pgSql, pgTransaction } from "@/lib/pg";
import { CHANGE_LOG_DAYS } from "./change-log.pg";
import {
  afterConsolidating,
  consolidatedMemory,
  consolidatedSummary,
  duplicateIndex,
  flagDuplicates,
  type HygieneReport,
  hygieneAudit,
  hygieneState,
  summaryBudget,
} from "./hygiene";
import { storeMemoriesPg } from "./memory-store.pg";
import { dropFromIndexes } from "./search-index";
import { catchUpIndexPg, rescoreExactlyPg } from "./search-index.pg";

async function sweepExpiredPg(): Promise<number> {
  const rows = await pgSql().all<{ id: number }>(
    `DELETE FROM "Memory" WHERE "id" IN (
       SELECT "id" FROM "Memory" WHERE "expiresAt" IS NOT NULL AND "expiresAt" <= $1 LIMIT 5000 FOR UPDATE SKIP LOCKED)
     RETURNING "id"`,
    [new Date()],
  );
  const ids = rows.map((row) => row.id);
  dropFromIndexes(ids, "deleted");
  return ids.length;
}

async function findDuplicatesPg(): Promise<{ flagged: number; merged: number }> {
  const index = await duplicateIndex();
  if (!index) return { flagged: 0, merged: 0 };
  // Other instances' memories too.
  await catchUpIndexPg();
  const sql = pgSql();
  const rows = await sql.all<{ id: number; agentId: string | null; scope: string; embedding: string | null }>(
    `SELECT "id", "agentId", "scope", encode("embedding", 'hex') AS "embedding" FROM "Memory"
     WHERE "id" > $1 AND "embeddingStatus" = 'done' AND "archivedAt" IS NULL AND "duplicateOfId" IS NULL ORDER BY "id" LIMIT 2000`,
    [hygieneState().checkedUpTo],
  );
  const flags = await flagDuplicates(index, rows, (vector, estimates, limit) => rescoreExactlyPg(sql, index, vector, estimates, limit));
  if (flags.length === 0) return { flagged: 0, merged: 0 };
  const merged = await pgTransaction(async (tx) => {
    const archived: number[] = [];
    const now = new Date();
    for (const flag of flags) {
      const pair = await tx.all<{ id: number; agentId: string | null; scope: string; source: string }>(
        `SELECT "id", "agentId", "scope", "source" FROM "Memory" WHERE "id" IN ($1, $2) AND "archivedAt" IS NULL ORDER BY "id" FOR UPDATE`,
        [flag.id, flag.of],
      );
      if (pair.length !== 2) continue;
      const [a, b] = pair as [(typeof pair)[0], (typeof pair)[0]];
      const same = a.agentId === b.agentId && a.scope === b.scope && a.source === b.source;
      if (flag.merge && same) {
        await tx.run(
          `UPDATE "Memory" SET "duplicateOfId" = $1, "supersededById" = $1, "archivedAt" = $2, "updatedAt" = $2 WHERE "id" = $3`,
          [flag.of, now, flag.id],
        );
        await tx.run('UPDATE "Memory" SET "accessCount" = "accessCount" + 1, "updatedAt" = $1 WHERE "id" = $2', [now, flag.of]);
        archived.push(flag.id);
      } else {
        await tx.run('UPDATE "Memory" SET "duplicateOfId" = $1, "updatedAt" = $2 WHERE "id" = $3', [flag.of, now, flag.id]);
      }
    }
    return archived;
  });
  dropFromIndexes(merged, "archived");
  return { flagged: flags.length - merged.length, merged: merged.length };
}

async function consolidateSummariesPg(): Promise<{ consolidated: number; archived: number }> {
  const budget = summaryBudget();
  const sql = pgSql();
  const over = await sql.all<{ agentId: string; n: number }>(
    `SELECT "agentId", COUNT(*) AS "n" FROM "Memory" WHERE "source" = 'session_summary' AND "archivedAt" IS NULL AND "agentId" IS NOT NULL
     GROUP BY "agentId" HAVING COUNT(*) > $1`,
    [budget],
  );
  const totals = { consolidated: 0, archived: 0 };
  for (const agent of over) {
    const excess = Math.min(agent.n - budget + 1, 50);
    const oldest = await sql.all<{ id: number; name: string; content: string }>(
      `SELECT "id", "name", "content" FROM "Memory" WHERE "source" = 'session_summary' AND "archivedAt" IS NULL AND "agentId" = $1
       ORDER BY "createdAt", "id" LIMIT $2`,
      [agent.agentId, excess],
    );
    const summary = await consolidatedSummary(oldest);
    const outcome = await pgTransaction(async (tx) => {
      // Still unarchived (no other run took them meanwhile): locked until the end.
      const live = await tx.all<{ id: number }>(
        `SELECT "id" FROM "Memory" WHERE "id" = ANY($1::int[]) AND "archivedAt" IS NULL ORDER BY "id" FOR UPDATE`,
        [oldest.map((row) => row.id)],
      );
      if (live.length !== oldest.length) return null;
      const now = new Date();
      const result = summary
        ? await storeMemoriesPg(tx, { actor: SYSTEM_ACTOR, items: [consolidatedMemory(agent.agentId, oldest.length, summary)] })
        : null;
      await tx.run(`UPDATE "Memory" SET "archivedAt" = $1, "supersededById" = $2, "updatedAt" = $1 WHERE "id" = ANY($3::int[])`, [
        now,
        result?.ids[0] ?? null,
        oldest.map((row) => row.id),
      ]);
      return { result };
    });
    if (!outcome) continue;
    afterConsolidating(totals, oldest, summary, outcome.result);
  }
  return totals;
}

/** Drops change-log entries every instance has long read (search-index.pg.ts reloads an instance that slept past them). */
async function pruneChangeLogPg(): Promise<void> {
  await pgSql().run(`DELETE FROM "MemoryChange" WHERE "at" < now() - make_interval(days => $1)`, [CHANGE_LOG_DAYS]);
}

export async function runHygienePg(): Promise<HygieneReport> {
  // One run at a time in the cluster: a session-level lock on a connection of its own, held for the run.
  const client = await pgPool().connect();
  let locked = false;
  try {
    await client.query("SELECT pg_advisory_lock(hashtext('swarmdeck:memory-hygiene'))");
    locked = true;
    const expired = await sweepExpiredPg();
    const { flagged, merged } = await findDuplicatesPg();
    const { consolidated, archived } = await consolidateSummariesPg();
    await pruneChangeLogPg();
    const report = { expired, flagged, merged, consolidated, archived };
    const audit = hygieneAudit(report);
    if (audit) await pgTransaction((sql) => appendAuditPg(sql, audit));
    return report;
  } finally {
    if (locked) await client.query("SELECT pg_advisory_unlock(hashtext('swarmdeck:memory-hygiene'))").catch(() => {});
    client.release();
  }
}

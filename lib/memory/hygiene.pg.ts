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
import { activeEmbedder } from "./embedders";
import { DUPLICATE_COSINE, type HygieneReport, hygieneState, MERGE_COSINE, summaryBudget } from "./hygiene";
import { afterStore } from "./memory-store";
import { storeMemoriesPg } from "./memory-store.pg";
import { chat } from "./provider";
import { dropFromIndexes, ensureIndex, indexReady, memoryIndex } from "./search-index";
import { CHANGE_LOG_DAYS, catchUpIndexPg, rescoreExactlyPg } from "./search-index.pg";
import { vectorFromHex } from "./vector-index";

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
  if (activeEmbedder()?.kind !== "provider") return { flagged: 0, merged: 0 };
  await ensureIndex();
  const index = memoryIndex();
  if (!index || !indexReady()) return { flagged: 0, merged: 0 };
  // Other instances' memories too.
  await catchUpIndexPg();
  const state = hygieneState();
  const sql = pgSql();
  const rows = await sql.all<{ id: number; agentId: string | null; scope: string; embedding: string | null }>(
    `SELECT "id", "agentId", "scope", encode("embedding", 'hex') AS "embedding" FROM "Memory"
     WHERE "id" > $1 AND "embeddingStatus" = 'done' AND "archivedAt" IS NULL AND "duplicateOfId" IS NULL ORDER BY "id" LIMIT 2000`,
    [state.checkedUpTo],
  );
  const flags: { id: number; of: number; merge: boolean }[] = [];
  const scratch = new Float32Array(index.dims);
  for (const row of rows) {
    state.checkedUpTo = row.id;
    const vector = row.embedding ? vectorFromHex(row.embedding, scratch) : null;
    if (!vector) continue;
    const filter = {
      agent: row.scope === "agent",
      swarm: row.scope === "swarm",
      agentCode: row.scope === "agent" ? index.findAgentCode(row.agentId ?? "") : -1,
    };
    const estimates = index.search(vector, { limit: 20, candidates: 200, filter });
    const hits = await rescoreExactlyPg(sql, index, vector, estimates, 3);
    const twin = hits.find((hit) => hit.id < row.id && hit.cosine >= DUPLICATE_COSINE);
    if (twin) flags.push({ id: row.id, of: twin.id, merge: twin.cosine >= MERGE_COSINE });
  }
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
  let consolidated = 0;
  let archived = 0;
  for (const agent of over) {
    const excess = Math.min(agent.n - budget + 1, 50);
    const oldest = await sql.all<{ id: number; name: string; content: string }>(
      `SELECT "id", "name", "content" FROM "Memory" WHERE "source" = 'session_summary' AND "archivedAt" IS NULL AND "agentId" = $1
       ORDER BY "createdAt", "id" LIMIT $2`,
      [agent.agentId, excess],
    );
    let summary: string | null = null;
    try {
      summary = await chat({
        system:
          "Consolidate these session summaries of one AI agent into one bulleted list of the durable, transferable learnings. Drop anything routine or superseded.",
        user: oldest.map((row) => `## ${row.name}\n${row.content.slice(0, 3000)}`).join("\n\n"),
      });
    } catch (error) {
      console.warn("[swarmdeck] summary consolidation failed; archiving instead", error);
    }
    const outcome = await pgTransaction(async (tx) => {
      // Still unarchived (no other run took them meanwhile): locked until the end.
      const live = await tx.all<{ id: number }>(
        `SELECT "id" FROM "Memory" WHERE "id" = ANY($1::int[]) AND "archivedAt" IS NULL ORDER BY "id" FOR UPDATE`,
        [oldest.map((row) => row.id)],
      );
      if (live.length !== oldest.length) return null;
      const now = new Date();
      const result = summary
        ? await storeMemoriesPg(tx, {
            actor: SYSTEM_ACTOR,
            items: [
              {
                name: `Consolidated session summaries (${oldest.length})`,
                content: summary,
                scope: "agent",
                source: "session_summary",
                agentId: agent.agentId,
              },
            ],
          })
        : null;
      await tx.run(`UPDATE "Memory" SET "archivedAt" = $1, "supersededById" = $2, "updatedAt" = $1 WHERE "id" = ANY($3::int[])`, [
        now,
        result?.ids[0] ?? null,
        oldest.map((row) => row.id),
      ]);
      return { result };
    });
    if (!outcome) continue;
    if (outcome.result) afterStore(outcome.result);
    dropFromIndexes(
      oldest.map((row) => row.id),
      "archived",
    );
    if (summary) consolidated += oldest.length;
    else archived += oldest.length;
  }
  return { consolidated, archived };
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
    if (Object.values(report).some((n) => n > 0)) {
      await pgTransaction((sql) =>
        appendAuditPg(sql, { actor: SYSTEM_ACTOR, action: "memory.hygiene", targetType: "memory", data: report }),
      );
    }
    return report;
  } finally {
    if (locked) await client.query("SELECT pg_advisory_unlock(hashtext('swarmdeck:memory-hygiene'))").catch(() => {});
    client.release();
  }
}

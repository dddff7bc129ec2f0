// Memory hygiene (reference 001, P9), run by the background job: expired
// memories swept; near-duplicates (cosine >= 0.9) flagged, and merged into the
// older memory when they are practically the same (>= 0.97, same agent, scope
// and source); past a per-agent budget the oldest session summaries are
// consolidated (by the chat model when configured, otherwise archived).
import { activeEmbedder } from "./embedders";
import "server-only";
import { appendAuditSync, SYSTEM_ACTOR } from "@/lib/audit/audit-log";
import { prepare, usesPostgres, withSqlite, writeTransaction } from "@/lib/db";
import { afterStore, storeMemoriesSync } from "./memory-store";
import { chat } from "./provider";
import { dropFromIndexes, ensureIndex, indexReady, memoryIndex, rescoreExactly } from "./search-index";
import { vectorFromHex } from "./vector-index";

export const DUPLICATE_COSINE = 0.9;
export const MERGE_COSINE = 0.97;

export function summaryBudget(): number {
  const value = Number(process.env.SWARMDECK_MEMORY_SUMMARY_BUDGET);
  return Number.isInteger(value) && value > 0 ? value : 200;
}

const globalState = globalThis as unknown as { swarmdeckHygiene?: { checkedUpTo: number } };

/** How far the duplicate check has read (memory ids), for the PostgreSQL twin (hygiene.pg.ts). */
export function hygieneState(): { checkedUpTo: number } {
  globalState.swarmdeckHygiene ??= { checkedUpTo: 0 };
  return globalState.swarmdeckHygiene;
}

export type HygieneReport = { expired: number; flagged: number; merged: number; consolidated: number; archived: number };

async function sweepExpired(): Promise<number> {
  const ids = await writeTransaction((sqlite) => {
    const rows = prepare(sqlite, "SELECT id FROM Memory WHERE expiresAt IS NOT NULL AND expiresAt <= ? LIMIT 5000").all(Date.now()) as {
      id: number;
    }[];
    if (rows.length === 0) return [];
    const remove = prepare(sqlite, "DELETE FROM Memory WHERE id = ?");
    for (const row of rows) remove.run(row.id);
    return rows.map((row) => row.id);
  });
  dropFromIndexes(ids, "deleted");
  return ids.length;
}

async function findDuplicates(): Promise<{ flagged: number; merged: number }> {
  // Averaged word vectors (the embedded default) put any two notes on one topic
  // above 0.9: the thresholds hold only for a provider's embeddings.
  if (activeEmbedder()?.kind !== "provider") return { flagged: 0, merged: 0 };
  await ensureIndex();
  const index = memoryIndex();
  if (!index || !indexReady()) return { flagged: 0, merged: 0 };
  globalState.swarmdeckHygiene ??= { checkedUpTo: 0 };
  const state = globalState.swarmdeckHygiene;
  const rows = await withSqlite(
    (sqlite) =>
      prepare(
        sqlite,
        `SELECT id, agentId, scope, source, hex(embedding) AS embedding FROM Memory
         WHERE id > ? AND embeddingStatus = 'done' AND archivedAt IS NULL AND duplicateOfId IS NULL ORDER BY id LIMIT 2000`,
      ).all(state.checkedUpTo) as { id: number; agentId: string | null; scope: string; source: string; embedding: string | null }[],
  );
  // Twins by exact cosine: the index's estimates re-scored with the stored
  // vectors, one memory at a time (requests go on between them).
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
    const hits = await withSqlite((sqlite) => rescoreExactly(sqlite, index, vector, estimates, 3));
    const twin = hits.find((hit) => hit.id < row.id && hit.cosine >= DUPLICATE_COSINE);
    if (twin) flags.push({ id: row.id, of: twin.id, merge: twin.cosine >= MERGE_COSINE });
  }
  if (flags.length === 0) return { flagged: 0, merged: 0 };
  const merged = await writeTransaction((sqlite) => {
    const archived: number[] = [];
    const now = Date.now();
    for (const flag of flags) {
      const pair = prepare(sqlite, "SELECT id, agentId, scope, source FROM Memory WHERE id IN (?, ?)").all(flag.id, flag.of) as {
        id: number;
        agentId: string | null;
        scope: string;
        source: string;
      }[];
      if (pair.length !== 2) continue;
      const [a, b] = pair as [(typeof pair)[0], (typeof pair)[0]];
      const same = a.agentId === b.agentId && a.scope === b.scope && a.source === b.source;
      if (flag.merge && same) {
        prepare(sqlite, "UPDATE Memory SET duplicateOfId = ?, supersededById = ?, archivedAt = ?, updatedAt = ? WHERE id = ?").run(
          flag.of,
          flag.of,
          now,
          now,
          flag.id,
        );
        prepare(sqlite, "UPDATE Memory SET accessCount = accessCount + 1, updatedAt = ? WHERE id = ?").run(now, flag.of);
        archived.push(flag.id);
      } else {
        prepare(sqlite, "UPDATE Memory SET duplicateOfId = ?, updatedAt = ? WHERE id = ?").run(flag.of, now, flag.id);
      }
    }
    return archived;
  });
  dropFromIndexes(merged, "archived");
  return { flagged: flags.length - merged.length, merged: merged.length };
}

async function consolidateSummaries(): Promise<{ consolidated: number; archived: number }> {
  const budget = summaryBudget();
  const over = await withSqlite(
    (sqlite) =>
      prepare(
        sqlite,
        `SELECT agentId, COUNT(*) AS n FROM Memory WHERE source = 'session_summary' AND archivedAt IS NULL AND agentId IS NOT NULL
         GROUP BY agentId HAVING n > ?`,
      ).all(budget) as { agentId: string; n: number }[],
  );
  let consolidated = 0;
  let archived = 0;
  for (const agent of over) {
    const excess = Math.min(agent.n - budget + 1, 50);
    const oldest = await withSqlite(
      (sqlite) =>
        prepare(
          sqlite,
          `SELECT id, name, content FROM Memory WHERE source = 'session_summary' AND archivedAt IS NULL AND agentId = ?
           ORDER BY createdAt, id LIMIT ?`,
        ).all(agent.agentId, excess) as { id: number; name: string; content: string }[],
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
    const stored = await writeTransaction((sqlite) => {
      const now = Date.now();
      const result = summary
        ? storeMemoriesSync(sqlite, {
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
      const archive = prepare(sqlite, "UPDATE Memory SET archivedAt = ?, supersededById = ?, updatedAt = ? WHERE id = ?");
      for (const row of oldest) archive.run(now, result?.ids[0] ?? null, now, row.id);
      return result;
    });
    if (stored) afterStore(stored);
    dropFromIndexes(
      oldest.map((row) => row.id),
      "archived",
    );
    if (summary) consolidated += oldest.length;
    else archived += oldest.length;
  }
  return { consolidated, archived };
}

export async function runHygiene(): Promise<HygieneReport> {
  if (usesPostgres()) return (await import("./hygiene.pg")).runHygienePg();
  const expired = await sweepExpired();
  const { flagged, merged } = await findDuplicates();
  const { consolidated, archived } = await consolidateSummaries();
  const report = { expired, flagged, merged, consolidated, archived };
  if (Object.values(report).some((n) => n > 0)) {
    await writeTransaction((sqlite) =>
      appendAuditSync(sqlite, { actor: SYSTEM_ACTOR, action: "memory.hygiene", targetType: "memory", data: report }),
    );
  }
  return report;
}

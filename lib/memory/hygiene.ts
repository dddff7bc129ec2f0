// Memory hygiene (reference 001, P9), run by the background job: expired
// memories swept; near-duplicates (cosine >= 0.9) flagged, and merged into the
// older memory when they are practically the same (>= 0.97, same agent, scope
// and source); past a per-agent budget the oldest session summaries are
// consolidated (by the chat model when configured, otherwise archived).
import { activeEmbedder } from "./embedders";
import "server-only";
import { type AuditInput, appendAuditSync, SYSTEM_ACTOR } from "@/lib/audit/audit-log";
import { prepare, usesPostgres, withSqlite, writeTransaction } from "@/lib/db";
import { afterStore, type NewMemory, type StoredMemories, storeMemoriesSync } from "./memory-store";
import { chat } from "./provider";
import { dropFromIndexes, ensureIndex, indexReady, memoryIndex, rescoreExactly } from "./search-index";
import { type VectorHit, type VectorIndex, vectorFromHex } from "./vector-index";

export const DUPLICATE_COSINE = 0.9;
export const MERGE_COSINE = 0.97;

export function summaryBudget(): number {
  const value = Number(process.env.SWARMDECK_MEMORY_SUMMARY_BUDGET);
  return Number.isInteger(value) && value > 0 ? value : 200;
}

const globalState = globalThis as unknown as { swarmdeckHygiene?: { checkedUpTo: number } };

/** How far the duplicate check has read (memory ids), on both stores. */
export function hygieneState(): { checkedUpTo: number } {
  globalState.swarmdeckHygiene ??= { checkedUpTo: 0 };
  return globalState.swarmdeckHygiene;
}

export type HygieneReport = { expired: number; flagged: number; merged: number; consolidated: number; archived: number };

/** The `memory.hygiene` audit input of a run that did something (null: it did nothing), on both stores. */
export function hygieneAudit(report: HygieneReport): AuditInput | null {
  if (!Object.values(report).some((n) => n > 0)) return null;
  return { actor: SYSTEM_ACTOR, action: "memory.hygiene", targetType: "memory", data: report };
}

/** `id` is a near-duplicate of the older memory `of`, to be merged into it when `merge`. */
export type DuplicateFlag = { id: number; of: number; merge: boolean };

/** The vector index to look for near-duplicates with (null: not now), on both stores. */
export async function duplicateIndex(): Promise<VectorIndex | null> {
  // Averaged word vectors (the embedded default) put any two notes on one topic
  // above 0.9: the thresholds hold only for a provider's embeddings.
  if (activeEmbedder()?.kind !== "provider") return null;
  await ensureIndex();
  const index = memoryIndex();
  return index && indexReady() ? index : null;
}

/**
 * Twins by exact cosine (both stores): the index's estimates for each row
 * re-scored with the stored vectors by the store's `rescore`, one memory at a
 * time (requests go on between them). The duplicate check's state moves past
 * each row read.
 */
export async function flagDuplicates(
  index: VectorIndex,
  rows: { id: number; agentId: string | null; scope: string; embedding: string | null }[],
  rescore: (vector: Float32Array, estimates: VectorHit[], limit: number) => VectorHit[] | Promise<VectorHit[]>,
): Promise<DuplicateFlag[]> {
  const state = hygieneState();
  const flags: DuplicateFlag[] = [];
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
    const hits = await rescore(vector, estimates, 3);
    const twin = hits.find((hit) => hit.id < row.id && hit.cosine >= DUPLICATE_COSINE);
    if (twin) flags.push({ id: row.id, of: twin.id, merge: twin.cosine >= MERGE_COSINE });
  }
  return flags;
}

/** The oldest session summaries of an agent consolidated by the chat model (null: none configured, or it failed: they are archived instead). */
export async function consolidatedSummary(oldest: { name: string; content: string }[]): Promise<string | null> {
  try {
    return await chat({
      system:
        "Consolidate these session summaries of one AI agent into one bulleted list of the durable, transferable learnings. Drop anything routine or superseded.",
      user: oldest.map((row) => `## ${row.name}\n${row.content.slice(0, 3000)}`).join("\n\n"),
    });
  } catch (error) {
    console.warn("[swarmdeck] summary consolidation failed; archiving instead", error);
    return null;
  }
}

/** The memory that supersedes an agent's consolidated session summaries (both stores). */
export function consolidatedMemory(agentId: string, count: number, summary: string): NewMemory {
  return { name: `Consolidated session summaries (${count})`, content: summary, scope: "agent", source: "session_summary", agentId };
}

/** After an agent's oldest summaries were consolidated (or archived) and committed: the indexes follow, the totals count them (both stores). */
export function afterConsolidating(
  totals: { consolidated: number; archived: number },
  oldest: { id: number }[],
  summary: string | null,
  stored: StoredMemories | null,
): void {
  if (stored) afterStore(stored);
  dropFromIndexes(
    oldest.map((row) => row.id),
    "archived",
  );
  if (summary) totals.consolidated += oldest.length;
  else totals.archived += oldest.length;
}

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
  const index = await duplicateIndex();
  if (!index) return { flagged: 0, merged: 0 };
  const rows = await withSqlite(
    (sqlite) =>
      prepare(
        sqlite,
        `SELECT id, agentId, scope, source, hex(embedding) AS embedding FROM Memory
         WHERE id > ? AND embeddingStatus = 'done' AND archivedAt IS NULL AND duplicateOfId IS NULL ORDER BY id LIMIT 2000`,
      ).all(hygieneState().checkedUpTo) as {
        id: number;
        agentId: string | null;
        scope: string;
        source: string;
        embedding: string | null;
      }[],
  );
  const flags = await flagDuplicates(index, rows, (vector, estimates, limit) =>
    withSqlite((sqlite) => rescoreExactly(sqlite, index, vector, estimates, limit)),
  );
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
  const totals = { consolidated: 0, archived: 0 };
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
    const summary = await consolidatedSummary(oldest);
    const stored = await writeTransaction((sqlite) => {
      const now = Date.now();
      const result = summary
        ? storeMemoriesSync(sqlite, { actor: SYSTEM_ACTOR, items: [consolidatedMemory(agent.agentId, oldest.length, summary)] })
        : null;
      const archive = prepare(sqlite, "UPDATE Memory SET archivedAt = ?, supersededById = ?, updatedAt = ? WHERE id = ?");
      for (const row of oldest) archive.run(now, result?.ids[0] ?? null, now, row.id);
      return result;
    });
    afterConsolidating(totals, oldest, summary, stored);
  }
  return totals;
}

export async function runHygiene(): Promise<HygieneReport> {
  if (usesPostgres()) return (await import("./hygiene.pg")).runHygienePg();
  const expired = await sweepExpired();
  const { flagged, merged } = await findDuplicates();
  const { consolidated, archived } = await consolidateSummaries();
  const report = { expired, flagged, merged, consolidated, archived };
  const audit = hygieneAudit(report);
  if (audit) await writeTransaction((sqlite) => appendAuditSync(sqlite, audit));
  return report;
}

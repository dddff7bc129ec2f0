// Writes a known history straight into the test database (the server's file),
// the way the app writes it: each task with its events and its rollup changes in
// one transaction through lib/metrics/rollup.ts, so the metric endpoints can be
// checked against exactly known answers.
import { randomBytes } from "node:crypto";
import Database from "better-sqlite3";
import { recordTaskRollup } from "@/lib/metrics/rollup";

export function openTestDb(file: string): Database.Database {
  const sqlite = new Database(file);
  sqlite.pragma("busy_timeout = 5000");
  return sqlite;
}

export const id = (prefix = "t") => `${prefix}${Date.now().toString(36)}${randomBytes(6).toString("hex")}`;

export type SeedTask = {
  agentId: string | null;
  status: "completed" | "failed" | "cancelled" | "pending";
  /** epoch ms the task finished (or was created, for pending). */
  at: number;
  durationMs?: number;
  failureReason?: string;
  soulVersionId?: string | null;
  title?: string;
};

export function seedTask(sqlite: Database.Database, task: SeedTask): string {
  const taskId = id("task");
  const createdAt = task.at - (task.durationMs ?? 0) - 60_000;
  const claimedAt = task.status === "pending" ? null : task.at - (task.durationMs ?? 0);
  sqlite.transaction(() => {
    sqlite
      .prepare(
        `INSERT INTO Task (id, title, status, agentId, attempts, claimedAt, finishedAt, failureReason, soulVersionId, createdAt, updatedAt)
         VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        taskId,
        task.title ?? "seeded task",
        task.status,
        task.agentId,
        claimedAt,
        task.status === "pending" ? null : task.at,
        task.failureReason ?? null,
        task.soulVersionId ?? null,
        createdAt,
        task.at,
      );
    const event = sqlite.prepare("INSERT INTO TaskEvent (taskId, type, fromStatus, toStatus, createdAt) VALUES (?, ?, ?, ?, ?)");
    event.run(taskId, "created", null, "pending", createdAt);
    recordTaskRollup(sqlite, { kind: "created", agentId: task.agentId, at: createdAt });
    if (task.status !== "pending") {
      event.run(taskId, "status", "in_progress", task.status, task.at);
      recordTaskRollup(sqlite, { kind: task.status, agentId: task.agentId, at: task.at, durationMs: task.durationMs ?? null });
    }
  })();
  return taskId;
}

/** Appends an identity version (creating the file row when missing); returns its id. */
export function seedVersion(
  sqlite: Database.Database,
  v: { agentId: string; kind: string; content: string; source: string; at: number; authorType?: string; reason?: string },
): string {
  let file = sqlite.prepare("SELECT id FROM IdentityFile WHERE agentId = ? AND kind = ?").get(v.agentId, v.kind) as
    | { id: string }
    | undefined;
  if (!file) {
    file = { id: id("file") };
    sqlite
      .prepare("INSERT INTO IdentityFile (id, agentId, kind, createdAt, updatedAt) VALUES (?, ?, ?, ?, ?)")
      .run(file.id, v.agentId, v.kind, v.at, v.at);
  }
  const last = sqlite.prepare("SELECT id, number FROM IdentityVersion WHERE fileId = ? ORDER BY number DESC LIMIT 1").get(file.id) as
    | { id: string; number: number }
    | undefined;
  const versionId = id("ver");
  sqlite
    .prepare(
      `INSERT INTO IdentityVersion (id, fileId, agentId, kind, number, content, contentHash, size, parentVersionId, authorType, source, reason, createdAt)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      versionId,
      file.id,
      v.agentId,
      v.kind,
      (last?.number ?? 0) + 1,
      v.content,
      `hash-${versionId}`,
      v.content.length,
      last?.id ?? null,
      v.authorType ?? "operator",
      v.source,
      v.reason ?? null,
      v.at,
    );
  sqlite.prepare("UPDATE IdentityFile SET currentVersionId = ? WHERE id = ?").run(versionId, file.id);
  return versionId;
}

export function seedProposal(
  sqlite: Database.Database,
  p: { agentId: string; kind: string; status: "approved" | "rejected" | "pending"; edited?: boolean; at: number },
) {
  const file = sqlite.prepare("SELECT id FROM IdentityFile WHERE agentId = ? AND kind = ?").get(p.agentId, p.kind) as { id: string };
  sqlite
    .prepare(
      `INSERT INTO IdentityProposal (id, agentId, fileId, kind, proposedContent, reason, trigger, status, edited, decidedAt, createdAt, updatedAt)
       VALUES (?, ?, ?, ?, 'proposed', 'seeded', 'agent', ?, ?, ?, ?, ?)`,
    )
    .run(id("prop"), p.agentId, file.id, p.kind, p.status, p.edited ? 1 : 0, p.status === "pending" ? null : p.at, p.at - 3_600_000, p.at);
}

export function seedMemory(sqlite: Database.Database, m: { agentId: string | null; source: string; at: number }) {
  sqlite
    .prepare(
      `INSERT INTO Memory (scope, agentId, name, content, source, contentHash, createdAt, updatedAt) VALUES (?, ?, 'seeded', 'seeded memory', ?, ?, ?, ?)`,
    )
    .run(m.agentId ? "agent" : "swarm", m.agentId, m.source, id("h"), m.at, m.at);
}

export function seedRetrieval(
  sqlite: Database.Database,
  r: {
    agentId: string | null;
    mode: string;
    embeddingUsed: boolean;
    resultCount: number;
    topScore: number | null;
    threshold: number | null;
    at: number;
  },
) {
  sqlite
    .prepare(
      `INSERT INTO MemoryRetrieval (kind, agentId, query, mode, embeddingUsed, resultCount, topScore, threshold, durationMs, createdAt)
       VALUES ('search', ?, 'q', ?, ?, ?, ?, ?, 3, ?)`,
    )
    .run(r.agentId, r.mode, r.embeddingUsed ? 1 : 0, r.resultCount, r.topScore, r.threshold, r.at);
}

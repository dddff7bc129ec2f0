// Writes a known history straight into the test database (the server's, on
// either store), the way the app writes it: each task with its events and its
// rollup changes through the store's own rollup code (lib/metrics/rollup.ts,
// lib/metrics/rollup.pg.ts), so the metric endpoints can be checked against
// exactly known answers. SQL here is written once for both stores (tests/support/test-db.ts).
import { randomBytes } from "node:crypto";
import Database from "better-sqlite3";
import { recordTaskRollup, type TaskRollupChange } from "@/lib/metrics/rollup";
import { recordTaskRollupPg } from "@/lib/metrics/rollup.pg";
import { openTestDb, type TestDb } from "./test-db";

/** The test database, plus the rollup write of its store. */
export type SeedDb = TestDb & { rollup(change: TaskRollupChange): Promise<void> };

/** Opens the test server's database for seeding: `databaseUrl` is what the server was started with. */
export function openSeedDb(databaseUrl: string): SeedDb {
  const db = openTestDb(databaseUrl);
  if (db.store === "postgresql") return { ...db, rollup: (change) => recordTaskRollupPg(db, change) };
  const sqlite = new Database(databaseUrl.slice("file:".length));
  sqlite.pragma("busy_timeout = 5000");
  return {
    ...db,
    async rollup(change) {
      recordTaskRollup(sqlite, change);
    },
    async close() {
      sqlite.close();
      await db.close();
    },
  };
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

export async function seedTask(db: SeedDb, task: SeedTask): Promise<string> {
  const taskId = id("task");
  const createdAt = task.at - (task.durationMs ?? 0) - 60_000;
  const claimedAt = task.status === "pending" ? null : task.at - (task.durationMs ?? 0);
  await db.run(
    `INSERT INTO "Task" ("id", "title", "status", "agentId", "attempts", "claimedAt", "finishedAt", "failureReason", "soulVersionId", "createdAt", "updatedAt")
     VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?)`,
    [
      taskId,
      task.title ?? "seeded task",
      task.status,
      task.agentId,
      claimedAt === null ? null : new Date(claimedAt),
      task.status === "pending" ? null : new Date(task.at),
      task.failureReason ?? null,
      task.soulVersionId ?? null,
      new Date(createdAt),
      new Date(task.at),
    ],
  );
  const event = (type: string, fromStatus: string | null, toStatus: string, at: number) =>
    db.run(`INSERT INTO "TaskEvent" ("taskId", "type", "fromStatus", "toStatus", "createdAt") VALUES (?, ?, ?, ?, ?)`, [
      taskId,
      type,
      fromStatus,
      toStatus,
      new Date(at),
    ]);
  await event("created", null, "pending", createdAt);
  await db.rollup({ kind: "created", agentId: task.agentId, at: createdAt });
  if (task.status !== "pending") {
    await event("status", "in_progress", task.status, task.at);
    await db.rollup({ kind: task.status, agentId: task.agentId, at: task.at, durationMs: task.durationMs ?? null });
  }
  return taskId;
}

/** Appends an identity version (creating the file row when missing); returns its id. */
export async function seedVersion(
  db: TestDb,
  v: { agentId: string; kind: string; content: string; source: string; at: number; authorType?: string; reason?: string },
): Promise<string> {
  let file = await db.get<{ id: string }>(`SELECT "id" FROM "IdentityFile" WHERE "agentId" = ? AND "kind" = ?`, [v.agentId, v.kind]);
  if (!file) {
    file = { id: id("file") };
    await db.run(`INSERT INTO "IdentityFile" ("id", "agentId", "kind", "createdAt", "updatedAt") VALUES (?, ?, ?, ?, ?)`, [
      file.id,
      v.agentId,
      v.kind,
      new Date(v.at),
      new Date(v.at),
    ]);
  }
  const last = await db.get<{ id: string; number: number }>(
    `SELECT "id", "number" FROM "IdentityVersion" WHERE "fileId" = ? ORDER BY "number" DESC LIMIT 1`,
    [file.id],
  );
  const versionId = id("ver");
  await db.run(
    `INSERT INTO "IdentityVersion" ("id", "fileId", "agentId", "kind", "number", "content", "contentHash", "size", "parentVersionId", "authorType", "source", "reason", "createdAt")
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
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
      new Date(v.at),
    ],
  );
  await db.run(`UPDATE "IdentityFile" SET "currentVersionId" = ? WHERE "id" = ?`, [versionId, file.id]);
  return versionId;
}

export async function seedProposal(
  db: TestDb,
  p: { agentId: string; kind: string; status: "approved" | "rejected" | "pending"; edited?: boolean; at: number },
) {
  const file = (await db.get<{ id: string }>(`SELECT "id" FROM "IdentityFile" WHERE "agentId" = ? AND "kind" = ?`, [
    p.agentId,
    p.kind,
  ])) as {
    id: string;
  };
  await db.run(
    `INSERT INTO "IdentityProposal" ("id", "agentId", "fileId", "kind", "proposedContent", "reason", "trigger", "status", "edited", "decidedAt", "createdAt", "updatedAt")
     VALUES (?, ?, ?, ?, 'proposed', 'seeded', 'agent', ?, ?, ?, ?, ?)`,
    [
      id("prop"),
      p.agentId,
      file.id,
      p.kind,
      p.status,
      Boolean(p.edited),
      p.status === "pending" ? null : new Date(p.at),
      new Date(p.at - 3_600_000),
      new Date(p.at),
    ],
  );
}

export async function seedMemory(db: TestDb, m: { agentId: string | null; source: string; at: number }) {
  await db.run(
    `INSERT INTO "Memory" ("scope", "agentId", "name", "content", "source", "contentHash", "createdAt", "updatedAt") VALUES (?, ?, 'seeded', 'seeded memory', ?, ?, ?, ?)`,
    [m.agentId ? "agent" : "swarm", m.agentId, m.source, id("h"), new Date(m.at), new Date(m.at)],
  );
}

export async function seedRetrieval(
  db: TestDb,
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
  await db.run(
    `INSERT INTO "MemoryRetrieval" ("kind", "agentId", "query", "mode", "embeddingUsed", "resultCount", "topScore", "threshold", "durationMs", "createdAt")
     VALUES ('search', ?, 'q', ?, ?, ?, ?, ?, 3, ?)`,
    [r.agentId, r.mode, r.embeddingUsed, r.resultCount, r.topScore, r.threshold, new Date(r.at)],
  );
}

// Helpers shared by the task tests: tokens, agents, tasks and a look into the
// server's database (read-only, except to arrange users and tokens), on either store.
import { randomBytes } from "node:crypto";
import { hashToken } from "../lib/auth/secrets";
import { admin, client, createAgent, createWorkerToken, server } from "./support/client";
import { openTestDb, type TestDb } from "./support/test-db";

let handle: TestDb | null = null;

/** The server's database, opened beside it (SQL for both stores: tests/support/test-db.ts). */
export function database(): TestDb {
  handle ??= openTestDb(server().databaseUrl);
  return handle;
}

function cuidLike(): string {
  return `t${Date.now().toString(36)}${randomBytes(8).toString("hex")}`;
}

/** A worker token for the agent, made through the admin API. */
export function workerToken(agentId: string): Promise<string> {
  return createWorkerToken(agentId);
}

/** An operator API token of a new user with `role` (arranged in the database). */
export async function operatorToken(role: "admin" | "operator" | "viewer"): Promise<string> {
  const token = `sdo_${randomBytes(32).toString("base64url")}`;
  const now = new Date();
  const userId = cuidLike();
  const db = database();
  await db.run(
    `INSERT INTO "User" ("id", "email", "name", "passwordHash", "role", "createdAt", "updatedAt") VALUES (?, ?, ?, ?, ?, ?, ?)`,
    [userId, `${userId}@test.local`, role, "!unusable", role, now, now],
  );
  await db.run(`INSERT INTO "ApiToken" ("id", "userId", "name", "tokenHash", "prefix", "createdAt") VALUES (?, ?, ?, ?, ?, ?)`, [
    cuidLike(),
    userId,
    `${role} token`,
    hashToken(token),
    token.slice(0, 10),
    now,
  ]);
  return token;
}

export async function agentWithWorker(body: Record<string, unknown> = {}) {
  const agent = await createAgent(body);
  const token = await workerToken(agent.id);
  return { agent, token, worker: client(token) };
}

export async function createTask(body: Record<string, unknown> = {}) {
  const reply = await admin().post("/api/v1/tasks", { title: "A task", ...body });
  if (reply.status !== 201) throw new Error(`could not create a task: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.task as { id: string; status: string; agentId: string | null; [key: string]: unknown };
}

/** Cancels every task waiting in the pool (through the API), so a test starts from an empty pool. */
export async function drainPool() {
  for (;;) {
    const list = await admin().get("/api/v1/tasks?status=unassigned&limit=200");
    if (list.status !== 200) throw new Error(`could not list the pool: ${list.status}`);
    if (list.body.tasks.length === 0) return;
    for (const task of list.body.tasks) {
      const cancelled = await admin().patch(`/api/v1/tasks/${task.id}`, { action: "cancel", reason: "test cleanup" });
      // 409: a worker took it meanwhile, so it is out of the pool all the same.
      if (cancelled.status !== 200 && cancelled.status !== 409) {
        throw new Error(`could not cancel pool task ${task.id}: ${cancelled.status} ${JSON.stringify(cancelled.body)}`);
      }
    }
  }
}

export async function auditActions(targetId: string): Promise<string[]> {
  const rows = await database().all<{ action: string }>(`SELECT "action" FROM "AuditEvent" WHERE "targetId" = ? ORDER BY "id"`, [targetId]);
  return rows.map((row) => row.action);
}

export async function taskRow(id: string): Promise<Record<string, unknown>> {
  return (await database().get<Record<string, unknown>>(`SELECT * FROM "Task" WHERE "id" = ?`, [id])) as Record<string, unknown>;
}

/** Number of tasks in the database. */
export async function taskCount(): Promise<number> {
  return (await database().get<{ n: number }>(`SELECT COUNT(*) AS "n" FROM "Task"`))?.n ?? 0;
}

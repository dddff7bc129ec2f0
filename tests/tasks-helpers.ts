// Helpers shared by the task tests: tokens, agents, tasks and a look into the
// server's database (read-only, except to arrange users and tokens).
import { randomBytes } from "node:crypto";
import Database from "better-sqlite3";
import { hashToken } from "../lib/auth/secrets";
import { admin, client, createAgent, createWorkerToken, server } from "./support/client";

let sqlite: Database.Database | null = null;

/** The server's SQLite file, opened beside it (WAL: readers never block the server). */
export function database(): Database.Database {
  sqlite ??= new Database(server().dbFile);
  sqlite.pragma("busy_timeout = 5000");
  return sqlite;
}

function cuidLike(): string {
  return `t${Date.now().toString(36)}${randomBytes(8).toString("hex")}`;
}

/** A worker token for the agent, made through the admin API. */
export function workerToken(agentId: string): Promise<string> {
  return createWorkerToken(agentId);
}

/** An operator API token of a new user with `role` (arranged in the database). */
export function operatorToken(role: "admin" | "operator" | "viewer"): string {
  const token = `sdo_${randomBytes(32).toString("base64url")}`;
  const now = Date.now();
  const userId = cuidLike();
  const db = database();
  db.prepare("INSERT INTO User (id, email, name, passwordHash, role, createdAt, updatedAt) VALUES (?, ?, ?, ?, ?, ?, ?)").run(
    userId,
    `${userId}@test.local`,
    role,
    "!unusable",
    role,
    now,
    now,
  );
  db.prepare("INSERT INTO ApiToken (id, userId, name, tokenHash, prefix, createdAt) VALUES (?, ?, ?, ?, ?, ?)").run(
    cuidLike(),
    userId,
    `${role} token`,
    hashToken(token),
    token.slice(0, 10),
    now,
  );
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
    for (const task of list.body.tasks) await admin().patch(`/api/v1/tasks/${task.id}`, { action: "cancel", reason: "test cleanup" });
  }
}

export function auditActions(targetId: string): string[] {
  return (
    database().prepare("SELECT action FROM AuditEvent WHERE targetId = ? ORDER BY id").all(targetId) as Array<{ action: string }>
  ).map((row) => row.action);
}

export function taskRow(id: string) {
  return database().prepare("SELECT * FROM Task WHERE id = ?").get(id) as Record<string, unknown>;
}

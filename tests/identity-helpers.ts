// Helpers for the identity HTTP tests: read the test database directly (to prove
// that a refusal wrote nothing) and mint tokens for agents and users of each role.
import { createHash, randomBytes, randomUUID } from "node:crypto";
import Database from "better-sqlite3";
import { WORKER_TOKEN_PREFIX } from "@/lib/contracts/tokens";
import { admin, client, createAgent, server } from "./support/client";

let database: Database.Database | null = null;
export function sql(): Database.Database {
  if (!database) {
    database = new Database(server().dbFile);
    database.pragma("busy_timeout = 5000");
  }
  return database;
}

const hash = (token: string) => createHash("sha256").update(token).digest("hex");

export function workerToken(agentId: string): string {
  const token = `${WORKER_TOKEN_PREFIX}${randomBytes(24).toString("base64url")}`;
  const now = Date.now();
  sql()
    .prepare("INSERT INTO WorkerToken (id, agentId, name, tokenHash, prefix, createdAt) VALUES (?, ?, ?, ?, ?, ?)")
    .run(randomUUID(), agentId, "identity test", hash(token), token.slice(0, 10), now);
  return token;
}

/** An operator API token for a new user with `role`. */
export function userToken(role: "admin" | "operator" | "viewer"): { token: string; userId: string; email: string } {
  const userId = randomUUID();
  const email = `${role}-${userId.slice(0, 8)}@test.local`;
  const token = `sdo_${randomBytes(24).toString("base64url")}`;
  const now = Date.now();
  sql()
    .prepare("INSERT INTO User (id, email, name, passwordHash, role, createdAt, updatedAt) VALUES (?, ?, ?, ?, ?, ?, ?)")
    .run(userId, email, role, "x", role, now, now);
  sql()
    .prepare("INSERT INTO ApiToken (id, userId, name, tokenHash, prefix, createdAt) VALUES (?, ?, ?, ?, ?, ?)")
    .run(randomUUID(), userId, "identity test", hash(token), token.slice(0, 10), now);
  return { token, userId, email };
}

export function createTask(agentId: string | null): string {
  const id = randomUUID();
  const now = Date.now();
  sql()
    .prepare("INSERT INTO Task (id, title, status, agentId, createdAt, updatedAt) VALUES (?, ?, 'in_progress', ?, ?, ?)")
    .run(id, "identity sync test", agentId, now, now);
  return id;
}

export function versionCount(agentId: string, kind: string): number {
  return (sql().prepare("SELECT COUNT(*) AS n FROM IdentityVersion WHERE agentId = ? AND kind = ?").get(agentId, kind) as { n: number }).n;
}

export function auditActions(agentId: string): string[] {
  return (sql().prepare("SELECT action FROM AuditEvent WHERE agentId = ? ORDER BY id").all(agentId) as { action: string }[]).map(
    (row) => row.action,
  );
}

export function lastAudit(
  agentId: string,
  action: string,
): { actorType: string; actorLabel: string; data: Record<string, unknown> } | undefined {
  const row = sql()
    .prepare("SELECT actorType, actorLabel, data FROM AuditEvent WHERE agentId = ? AND action = ? ORDER BY id DESC LIMIT 1")
    .get(agentId, action) as { actorType: string; actorLabel: string; data: string } | undefined;
  return row && { ...row, data: JSON.parse(row.data) };
}

/** A new agent with a worker client bound to it. */
export async function agentWithWorker(body: Record<string, unknown> = {}) {
  const agent = await createAgent(body);
  return { agent, worker: client(workerToken(agent.id)) };
}

export async function current(agentId: string, slug: string) {
  const reply = await admin().get(`/api/v1/agents/${agentId}/identity/${slug}`);
  return reply.body as { content: string; versionId: string; versionNumber: number; exists: boolean };
}

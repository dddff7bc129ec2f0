// Helpers for the identity HTTP tests: read the test database directly (to prove
// that a refusal wrote nothing) and mint tokens for agents and users of each role.
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { WORKER_TOKEN_PREFIX } from "@/lib/contracts/tokens";
import { admin, client, createAgent, server } from "./support/client";
import { openTestDb, type TestDb } from "./support/test-db";

let database: TestDb | null = null;
/** The test server's database, on either store (tests/support/test-db.ts). */
export function sql(): TestDb {
  database ??= openTestDb(server().databaseUrl);
  return database;
}

const hash = (token: string) => createHash("sha256").update(token).digest("hex");

export async function workerToken(agentId: string): Promise<string> {
  const token = `${WORKER_TOKEN_PREFIX}${randomBytes(24).toString("base64url")}`;
  await sql().run('INSERT INTO "WorkerToken" ("id", "agentId", "name", "tokenHash", "prefix", "createdAt") VALUES (?, ?, ?, ?, ?, ?)', [
    randomUUID(),
    agentId,
    "identity test",
    hash(token),
    token.slice(0, 10),
    new Date(),
  ]);
  return token;
}

/** An operator API token for a new user with `role`. */
export async function userToken(role: "admin" | "operator" | "viewer"): Promise<{ token: string; userId: string; email: string }> {
  const userId = randomUUID();
  const email = `${role}-${userId.slice(0, 8)}@test.local`;
  const token = `sdo_${randomBytes(24).toString("base64url")}`;
  const now = new Date();
  await sql().run(
    'INSERT INTO "User" ("id", "email", "name", "passwordHash", "role", "createdAt", "updatedAt") VALUES (?, ?, ?, ?, ?, ?, ?)',
    [userId, email, role, "x", role, now, now],
  );
  await sql().run('INSERT INTO "ApiToken" ("id", "userId", "name", "tokenHash", "prefix", "createdAt") VALUES (?, ?, ?, ?, ?, ?)', [
    randomUUID(),
    userId,
    "identity test",
    hash(token),
    token.slice(0, 10),
    now,
  ]);
  return { token, userId, email };
}

export async function createTask(agentId: string | null): Promise<string> {
  const id = randomUUID();
  const now = new Date();
  await sql().run(
    `INSERT INTO "Task" ("id", "title", "status", "agentId", "createdAt", "updatedAt") VALUES (?, ?, 'in_progress', ?, ?, ?)`,
    [id, "identity sync test", agentId, now, now],
  );
  return id;
}

export async function versionCount(agentId: string, kind: string): Promise<number> {
  const row = await sql().get<{ n: number }>('SELECT COUNT(*) AS "n" FROM "IdentityVersion" WHERE "agentId" = ? AND "kind" = ?', [
    agentId,
    kind,
  ]);
  return Number(row?.n);
}

export async function auditActions(agentId: string): Promise<string[]> {
  const rows = await sql().all<{ action: string }>('SELECT "action" FROM "AuditEvent" WHERE "agentId" = ? ORDER BY "id"', [agentId]);
  return rows.map((row) => row.action);
}

export async function lastAudit(
  agentId: string,
  action: string,
): Promise<{ actorType: string; actorLabel: string; data: Record<string, unknown> } | undefined> {
  const row = await sql().get<{ actorType: string; actorLabel: string; data: string }>(
    'SELECT "actorType", "actorLabel", "data" FROM "AuditEvent" WHERE "agentId" = ? AND "action" = ? ORDER BY "id" DESC LIMIT 1',
    [agentId, action],
  );
  return row && { ...row, data: JSON.parse(row.data) };
}

/** A new agent with a worker client bound to it. */
export async function agentWithWorker(body: Record<string, unknown> = {}) {
  const agent = await createAgent(body);
  return { agent, worker: client(await workerToken(agent.id)) };
}

export async function current(agentId: string, slug: string) {
  const reply = await admin().get(`/api/v1/agents/${agentId}/identity/${slug}`);
  return reply.body as { content: string; versionId: string; versionNumber: number; exists: boolean };
}

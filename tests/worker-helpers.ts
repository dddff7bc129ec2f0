// biome-ignore-all lint/suspicious/noExplicitAny: JSON answers of the app under test
// Helpers for the full-loop tests: a real app (tests/support), a real worker
// process (worker/main.ts --once) and scripted agents (tests/fixtures/agents).
import { execFileSync } from "node:child_process";
import { createHash, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, expect } from "vitest";
import { openTestDb } from "./support/test-db";

export type Target = { baseUrl: string; dbFile: string; databaseUrl: string; adminToken: string };

export async function call(target: Target, method: string, path: string, body?: unknown, token = target.adminToken) {
  const response = await fetch(`${target.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: any = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = text;
  }
  return { status: response.status, body: parsed };
}

let counter = 0;
/** A new agent and a worker token for it, both through the operator API. */
export async function agentWithToken(target: Target, body: Record<string, unknown> = {}) {
  counter += 1;
  const agent = await call(target, "POST", "/api/v1/agents", { name: `wl-${process.pid}-${Date.now().toString(36)}-${counter}`, ...body });
  expect(agent.status, JSON.stringify(agent.body)).toBe(201);
  const id = agent.body.agent.id as string;
  const made = await call(target, "POST", `/api/v1/agents/${id}/tokens`, { name: "full-loop worker" });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  return { id, name: agent.body.agent.name as string, token: made.body.token as string };
}

/** The global setup script (swarm config, scope global, key SETUP_SCRIPT). */
export async function setGlobalSetupScript(target: Target, value: string) {
  const reply = await call(target, "PUT", "/api/v1/config", { scope: "global", key: "SETUP_SCRIPT", value });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
}

export async function createTask(target: Target, body: Record<string, unknown>) {
  const reply = await call(target, "POST", "/api/v1/tasks", body);
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body.task.id as string;
}

export async function getTask(target: Target, taskId: string) {
  const reply = await call(target, "GET", `/api/v1/tasks/${taskId}`);
  expect(reply.status).toBe(200);
  return reply.body as { task: any; events: any[] };
}

export async function waitForTask(target: Target, taskId: string, test: (task: any) => boolean, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const detail = await getTask(target, taskId);
    if (test(detail.task)) return detail;
    if (Date.now() > deadline) throw new Error(`task ${taskId} never got there: ${JSON.stringify(detail.task)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function identity(target: Target, agentId: string, slug: string) {
  const reply = await call(target, "GET", `/api/v1/agents/${agentId}/identity/${slug}`);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body as { content: string; versionId: string | null };
}

/** An operator's edit of one of the agent's identity files (its setup script too); answers the new version. */
export async function saveIdentity(target: Target, agentId: string, slug: string, content: string) {
  const before = await identity(target, agentId, slug);
  const reply = await call(target, "PUT", `/api/v1/agents/${agentId}/identity/${slug}`, {
    content,
    baseVersionId: before.versionId,
    reason: "set by the test",
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body.versionId as string;
}

/** A bare repository at `origin` with one commit on main (app.txt): the project the workers clone. */
export function seedBareRepository(origin: string): void {
  execFileSync("git", ["init", "--quiet", "--bare", "--initial-branch=main", origin]);
  const seed = `${origin}.seed`;
  execFileSync("git", ["clone", "--quiet", origin, seed], { stdio: "ignore" });
  writeFileSync(`${seed}/app.txt`, "line 1\n");
  const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=s", "-c", "user.email=s@t", ...args], { cwd: seed });
  git("add", ".");
  git("commit", "--quiet", "-m", "initial");
  git("push", "--quiet", "origin", "HEAD:main");
}

/** One agent's memories (newest first) through the operator API, optionally of one source. */
export async function agentMemories(target: Target, agentId: string, source?: string) {
  const query = new URLSearchParams({ agentId, limit: "200", ...(source ? { source } : {}) });
  const reply = await call(target, "GET", `/api/v1/memories?${query}`);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body.memories as any[];
}

/** The progress notes on a task's timeline (what the worker sent with its heartbeats). */
export async function progressNotes(target: Target, taskId: string) {
  const { events } = await getTask(target, taskId);
  return events.filter((event: { type: string }) => event.type === "progress").map((event: { message: string }) => event.message);
}

/**
 * Makes `content` the current version of one of the agent's identity files, written
 * straight into the app's database the way releases before the content checks stored
 * it (an operator's save, unchecked). The operator API now refuses such a file (an
 * invalid capabilities.yaml, or one in its older shape: 400), yet agents created back
 * then still have one, and the worker must handle it. Answers the new version's id.
 */
export async function storeUncheckedIdentityVersion(target: Target, agentId: string, kind: string, content: string): Promise<string> {
  const database = openTestDb(target.databaseUrl);
  try {
    const file = await database.get<{ id: string; currentVersionId: string | null }>(
      'SELECT "id", "currentVersionId" FROM "IdentityFile" WHERE "agentId" = ? AND "kind" = ?',
      [agentId, kind],
    );
    if (!file) throw new Error(`agent ${agentId} has no ${kind} file`);
    const last = await database.get<{ n: number | null }>('SELECT MAX("number") AS "n" FROM "IdentityVersion" WHERE "fileId" = ?', [
      file.id,
    ]);
    const id = randomUUID();
    const now = new Date();
    await database.run(
      `INSERT INTO "IdentityVersion" ("id", "fileId", "agentId", "kind", "number", "content", "contentHash", "size", "deleted",
         "parentVersionId", "authorType", "authorId", "source", "reason", "createdAt")
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        id,
        file.id,
        agentId,
        kind,
        Number(last?.n ?? 0) + 1,
        content,
        createHash("sha256").update(content).digest("hex"),
        Buffer.byteLength(content),
        false,
        file.currentVersionId,
        "operator",
        null,
        "api",
        "saved before the content checks",
        now,
      ],
    );
    await database.run('UPDATE "IdentityFile" SET "currentVersionId" = ?, "updatedAt" = ? WHERE "id" = ?', [id, now, file.id]);
    return id;
  } finally {
    await database.close();
  }
}

/** A maker of temporary directories named `swarmdeck-<prefix>-…`, all removed after the file's tests. */
export function tempDirs(prefix: string): () => string {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(path.join(tmpdir(), `swarmdeck-${prefix}-`));
    dirs.push(dir);
    return dir;
  };
}

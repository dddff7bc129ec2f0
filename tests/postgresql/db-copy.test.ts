// Moving over (docs/postgresql.md): `npm run db:copy` copies a SQLite database that
// a real server filled (agents, identity histories, tasks with subtasks, memories
// with embeddings, the audit chain) into an empty PostgreSQL database; a server
// started on the copy answers what the SQLite server answered; a second copy into
// the now full database and a copy from a missing file are refused, clearly.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createPostgresDatabase } from "../support/test-db";
import { startTestServer, type TestServer } from "../support/test-server";

const ROOT = path.resolve(import.meta.dirname, "..", "..");
const dataDir = mkdtempSync(path.join(tmpdir(), "swarmdeck-copy-"));
const sqliteUrl = `file:${path.join(dataDir, "source.db")}`;
const cleanups: Array<() => Promise<void>> = [];

type Reply = { status: number; body: any };

async function call(server: TestServer, method: string, url: string, body?: unknown, token = server.adminToken): Promise<Reply> {
  const response = await fetch(`${server.baseUrl}${url}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

function copy(args: string[]) {
  return spawnSync(process.execPath, ["--conditions=react-server", "--import", "tsx", "scripts/db-copy.ts", ...args], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, CHECKPOINT_DISABLE: "1" },
  });
}

/** What an operator sees of the deployment: the answers the copy must keep. */
async function snapshot(server: TestServer, agentIds: string[]) {
  const agents = (await call(server, "GET", "/api/v1/agents")).body.agents.map((a: { id: string; name: string }) => [a.id, a.name]);
  const histories = [];
  for (const id of agentIds) {
    for (const kind of ["soul", "tools"]) {
      const versions = await call(server, "GET", `/api/v1/agents/${id}/identity/${kind}/versions`);
      histories.push(versions.body.versions.map((v: { id: string; content?: string; createdAt: string }) => [v.id, v.createdAt]));
    }
  }
  const tasks = (await call(server, "GET", "/api/v1/tasks?limit=200")).body.tasks.map(
    (t: { id: string; status: string; parentTaskId: string | null; agentId: string | null }) => [t.id, t.status, t.parentTaskId, t.agentId],
  );
  const audit = (await call(server, "GET", "/api/v1/audit/verify")).body;
  return { agents, histories, tasks, audit };
}

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("npm run db:copy", () => {
  it("copies a filled SQLite database into PostgreSQL, verified, and the app serves the copy the same", async () => {
    const source = await startTestServer({ databaseUrl: sqliteUrl, dataDir, keepData: true });
    cleanups.push(() => source.stop());
    const agentIds: string[] = [];
    for (const name of ["copy-alpha", "copy-beta"]) {
      const agent = (await call(source, "POST", "/api/v1/agents", { name })).body.agent;
      agentIds.push(agent.id);
      for (const [i, line] of ["Be careful.", "Be careful and brief.", "Be careful, brief and kind."].entries()) {
        const base = (await call(source, "GET", `/api/v1/agents/${agent.id}/identity/soul`)).body;
        const saved = await call(source, "PUT", `/api/v1/agents/${agent.id}/identity/soul`, {
          content: `# Soul\n\n${line} (${i})\n`,
          baseVersionId: base.versionId,
        });
        expect(saved.status, JSON.stringify(saved.body)).toBe(200);
      }
    }
    const parent = (await call(source, "POST", "/api/v1/tasks", { title: "Parent", agentId: agentIds[0] })).body.task;
    const child = await call(source, "POST", "/api/v1/tasks", { title: "Child", parentTaskId: parent.id });
    expect(child.status).toBe(201);
    const token = (await call(source, "POST", `/api/v1/agents/${agentIds[0]}/tokens`, { name: "w" })).body.token as string;
    const claimed = await call(source, "GET", "/api/worker/poll?waitMs=0", undefined, token);
    expect(claimed.status).toBe(200);
    expect((await call(source, "POST", `/api/worker/tasks/${claimed.body.task.id}/complete`, { output: "ok" }, token)).status).toBe(200);
    const memory = await call(
      source,
      "POST",
      "/api/worker/memories",
      { name: "Deploys", content: "Run the migrations before the deploy." },
      token,
    );
    expect(memory.status).toBe(201);
    const before = await snapshot(source, agentIds);
    expect(before.audit.ok).toBe(true);
    expect(before.audit.checked).toBeGreaterThan(10);
    await source.stop();

    const target = await createPostgresDatabase("swarmdeck_copy");
    cleanups.push(() => target.drop());
    const result = copy(["--from", sqliteUrl, "--to", target.url]);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/Verified: every table's rows equal/);
    expect(result.stdout).toContain(`audit chain of ${before.audit.checked} events intact`);

    const copied = await startTestServer({ databaseUrl: target.url });
    cleanups.push(() => copied.stop());
    const after = await snapshot(copied, agentIds);
    expect(after.agents).toEqual(before.agents);
    expect(after.histories).toEqual(before.histories);
    expect(after.tasks).toEqual(before.tasks);
    // The copy's own start wrote nothing to the chain it would not verify.
    expect(after.audit).toMatchObject({ ok: true, brokenAt: null });
    expect(after.audit.checked).toBeGreaterThanOrEqual(before.audit.checked);
    // New rows get new ids after the copied ones (the sequences were set).
    const again = await call(copied, "POST", "/api/worker/memories", { name: "Rollbacks", content: "Keep the previous image." }, token);
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    expect(Math.min(...again.body.ids)).toBeGreaterThan(Math.max(...memory.body.ids));

    // A second copy into the now full database is refused and changes nothing.
    const refused = copy(["--from", sqliteUrl, "--to", target.url]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/not empty/);
    expect((await call(copied, "GET", "/api/v1/audit/verify")).body.ok).toBe(true);
  });

  it("refuses a missing source or a target that is not PostgreSQL, naming no password", () => {
    const missing = copy(["--from", `file:${path.join(dataDir, "nothing-here.db")}`, "--to", "postgresql://u:s3cret-pw@127.0.0.1:5432/x"]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain("no SQLite database at");
    expect(missing.stderr).not.toContain("s3cret-pw");
    const wrong = copy(["--from", sqliteUrl, "--to", `file:${path.join(dataDir, "other.db")}`]);
    expect(wrong.status).toBe(1);
    expect(wrong.stderr).toContain("--to must be a postgresql:// URL");
  });
});

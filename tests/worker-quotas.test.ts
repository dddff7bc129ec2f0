// Per-agent limits on what a worker may store per period (issue 15, point 7):
// memories (and a lead's learnings), identity writes and proposals, offered tasks,
// tool changes, and registrations (each an audit entry). Past the limit: 429
// rate_limited with Retry-After, and nothing stored. Its own server, with limits
// small enough to reach.
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnWorker } from "../worker/test-support/run-worker";
import { startTestServer, type TestServer } from "./support/test-server";

let app: TestServer;

beforeAll(async () => {
  app = await startTestServer({
    env: {
      SWARMDECK_WORKER_MEMORIES_PER_HOUR: "3",
      SWARMDECK_WORKER_PROPOSALS_PER_HOUR: "2",
      SWARMDECK_WORKER_OFFERED_TASKS_PER_HOUR: "2",
      SWARMDECK_WORKER_TOOL_CHANGES_PER_HOUR: "2",
      SWARMDECK_WORKER_REGISTRATIONS_PER_HOUR: "2",
    },
  });
});
afterAll(() => app?.stop());

async function call(token: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${app.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as any) : null, retryAfter: response.headers.get("retry-after") };
}

async function workerAgent(name: string) {
  const agent = await call(app.adminToken, "POST", "/api/v1/agents", { name });
  const token = await call(app.adminToken, "POST", `/api/v1/agents/${agent.body.agent.id}/tokens`, { name: "quota test" });
  return { id: agent.body.agent.id as string, token: token.body.token as string };
}

function expectLimited(reply: { status: number; body: any; retryAfter: string | null }, quota: string, limit: number) {
  expect(reply.status).toBe(429);
  expect(reply.body.error).toMatchObject({ code: "rate_limited", details: { quota, limit, periodSeconds: 3600 } });
  expect(Number(reply.retryAfter)).toBeGreaterThan(0);
}

describe("per-agent limits on the worker API", () => {
  it("memories: the 4th in an hour is refused and not stored; another agent is not affected", async () => {
    const busy = await workerAgent("quota-busy");
    for (let i = 0; i < 3; i++) {
      expect((await call(busy.token, "POST", "/api/worker/memories", { name: `note ${i}`, content: `lesson ${i}` })).status).toBe(201);
    }
    const refused = await call(busy.token, "POST", "/api/worker/memories", { name: "note 3", content: "one too many" });
    expectLimited(refused, "memories", 3);
    const stored = await call(app.adminToken, "GET", `/api/v1/memories?agentId=${busy.id}&limit=50`);
    expect(JSON.stringify(stored.body)).not.toContain("one too many");

    const calm = await workerAgent("quota-calm");
    expect((await call(calm.token, "POST", "/api/worker/memories", { name: "note", content: "fine" })).status).toBe(201);
  });

  it("identity writes and proposals: the 3rd in an hour is refused and the file keeps its version", async () => {
    const agent = await workerAgent("quota-identity");
    const current = async () => (await call(agent.token, "GET", "/api/worker/identity/tools")).body;
    for (let i = 0; i < 2; i++) {
      const before = await current();
      const reply = await call(agent.token, "PUT", "/api/worker/identity/tools", {
        content: `# Tools\n\nrevision ${i}\n`,
        baseVersionId: before.versionId,
        reason: "quota test",
        trigger: "agent",
      });
      expect([200, 202]).toContain(reply.status);
    }
    const before = await current();
    const refused = await call(agent.token, "PUT", "/api/worker/identity/tools", {
      content: "# Tools\n\none too many\n",
      baseVersionId: before.versionId,
      reason: "quota test",
      trigger: "agent",
    });
    expectLimited(refused, "proposals", 2);
    expect(JSON.stringify(await current())).toBe(JSON.stringify(before));
  });

  it("offered tasks: the 3rd in an hour is refused and not created", async () => {
    const agent = await workerAgent("quota-tasks");
    for (let i = 0; i < 2; i++) {
      expect((await call(agent.token, "POST", "/api/worker/tasks", { title: `follow-up ${i}` })).status).toBe(201);
    }
    expectLimited(await call(agent.token, "POST", "/api/worker/tasks", { title: "one too many" }), "offered_tasks", 2);
    const tasks = await call(app.adminToken, "GET", "/api/v1/tasks?limit=200");
    expect(JSON.stringify(tasks.body)).not.toContain("one too many");
  });

  it("tool writes and built-in changes: one count, the 3rd in an hour is refused before anything is compiled or stored", async () => {
    const agent = await workerAgent("quota-tools");
    const tool = (name: string) => ({
      name,
      description: `${name} counts words`,
      source: `export default { name: "${name}" }`,
      compiledCode: "export const tool = {};",
      inputSchema: { type: "object", properties: {} },
      testInput: {},
      testOutput: 0,
      testDurationMs: 5,
      reason: "quota test",
    });
    expect((await call(agent.token, "POST", "/api/worker/tools", tool("first_tool"))).status).toBe(201);
    expect((await call(agent.token, "POST", "/api/worker/tools", tool("second_tool"))).status).toBe(201);
    expectLimited(await call(agent.token, "POST", "/api/worker/tools", tool("third_tool")), "tool_changes", 2);
    const builtin = await call(agent.token, "POST", "/api/worker/builtin-tools", {
      name: "memory_search",
      source: 'export default { name: "memory_search" }',
      testInput: {},
      reason: "quota test",
    });
    expectLimited(builtin, "tool_changes", 2);
    const listed = await call(agent.token, "GET", "/api/worker/tools");
    expect(listed.body.tools.map((t: { name: string }) => t.name).sort()).toEqual(["first_tool", "second_tool"]);
    expect(listed.body.builtins).toEqual([]);
  });

  it("registrations: the 3rd in an hour is refused, records nothing and writes no audit entry", async () => {
    const agent = await workerAgent("quota-register");
    const register = (hostname: string) =>
      call(agent.token, "POST", "/api/worker/register", { version: "1.0.0", hostname, harness: "command" });
    expect((await register("box-1")).status).toBe(200);
    expect((await register("box-2")).status).toBe(200);
    expectLimited(await register("box-3"), "registrations", 2);

    const shown = await call(app.adminToken, "GET", `/api/v1/agents/${agent.id}`);
    expect(shown.body.agent.workerHostname).toBe("box-2");
    const audit = await call(app.adminToken, "GET", `/api/v1/audit?action=worker.registered&agentId=${agent.id}`);
    expect(audit.body.events.map((event: { data: { hostname: string } }) => event.data.hostname)).toEqual(["box-2", "box-1"]);

    const other = await workerAgent("quota-register-other");
    expect((await call(other.token, "POST", "/api/worker/register", { version: "1", hostname: "h", harness: "command" })).status).toBe(200);
  });

  it("a worker refused at registration waits for the Retry-After, claims nothing, and stops cleanly on SIGTERM; with --once it exits 1", {
    timeout: 60_000,
  }, async () => {
    const agent = await workerAgent("quota-register-worker");
    for (const hostname of ["a", "b"]) {
      expect((await call(agent.token, "POST", "/api/worker/register", { version: "1", hostname, harness: "command" })).status).toBe(200);
    }
    const task = await call(app.adminToken, "POST", "/api/v1/tasks", { title: "waits for a registered worker", agentId: agent.id });
    expect(task.status).toBe(201);
    const workspace = mkdtempSync(path.join(tmpdir(), "swarmdeck-quota-"));
    try {
      const worker = spawnWorker(
        { SWARMDECK_URL: app.baseUrl, SWARMDECK_TOKEN: agent.token, WORKSPACE_DIR: workspace, AGENT_COMMAND: "true" },
        [],
      );
      await worker.waitFor(
        /register: the app refused for now \(429: .*limit of 2 worker registrations per hour\); trying again in (\d+) s/,
      );
      // The wait is the window's rest (up to an hour), not a retry every few seconds.
      const seconds = Number(/trying again in (\d+) s/.exec(worker.log())?.[1]);
      expect(seconds).toBeGreaterThan(60);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(worker.log().match(/register: the app refused/g)).toHaveLength(1);
      expect(worker.child.exitCode).toBeNull();
      // Waiting is not hanging: the container's health check (docker-compose.yml: worker.alive
      // touched within the last 60 s) stays green, so the worker is not shown as unhealthy. This
      // shows the touch at the start; the 15 s interval that keeps it fresh runs for as long as
      // runWorker does (worker/worker-loop.ts), which a test would have to wait out.
      const touched = statSync(path.join(workspace, "worker.alive")).mtimeMs;
      expect(Date.now() - touched).toBeLessThan(60_000);
      expect(existsSync(path.join(workspace, "project"))).toBe(false);
      worker.child.kill("SIGTERM");
      expect(await worker.exited, worker.log()).toBe(0);
      // A single run (--once) does not wait the hour out: it says so and exits 1.
      const once = spawnWorker({
        SWARMDECK_URL: app.baseUrl,
        SWARMDECK_TOKEN: agent.token,
        WORKSPACE_DIR: workspace,
        AGENT_COMMAND: "true",
      });
      expect(await once.exited, once.log()).toBe(1);
      expect(once.log()).toMatch(/register: the app refused for now \(429: .*\); exiting without claiming a task \(--once\)/);
      const after = await call(app.adminToken, "GET", `/api/v1/tasks/${task.body.task.id}`);
      expect(after.body.task).toMatchObject({ status: "pending", attempts: 0 });
    } finally {
      rmSync(workspace, { recursive: true, force: true });
    }
  });
});

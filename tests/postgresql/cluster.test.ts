// Several app instances on one PostgreSQL database (docs/postgresql.md): three real
// production servers share a fresh database. Workers poll whichever instance they
// like; every task is claimed exactly once; a long poll on one instance wakes for a
// task created on another; the audit chain written by all three verifies as one
// chain; a due schedule fires once, not once per instance; and when the instance
// that runs the background jobs is killed with SIGKILL, the others carry on: the
// queue still drains exactly once and the next schedule still fires, once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuild } from "../../scripts/launch";
import { createPostgresDatabase, openTestDb, type TestDb } from "../support/test-db";
import { startTestServer, type TestServer } from "../support/test-server";

const MINUTE = 60_000;
// The servers' clock (SWARMDECK_CLOCK_OFFSET_MS) is set to Monday 2030-01-07 08:30 UTC at the start.
const SERVER_START = Date.parse("2030-01-07T08:30:00.000Z");
const INSTANCES = 3;
let offset = 0;

/** The next whole minute of the servers' clock at least 15 s away, and a daily cron for it. */
function nextSlot(): { at: number; cron: string } {
  const at = Math.ceil((Date.now() + offset + 15_000) / MINUTE) * MINUTE;
  const time = new Date(at);
  return { at, cron: `${time.getUTCMinutes()} ${time.getUTCHours()} * * *` };
}

let database: { url: string; drop(): Promise<void> };
let instances: TestServer[] = [];
let sql: TestDb;
let adminToken = "";

type Reply = { status: number; body: any };

async function call(base: string, token: string, method: string, url: string, body?: unknown): Promise<Reply> {
  const response = await fetch(`${base}${url}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

const live = () => instances.filter((server) => server.pid !== 0);
const admin = (method: string, url: string, body?: unknown, on = live()[0] as TestServer) =>
  call(on.baseUrl, adminToken, method, url, body);

async function agentWithToken(name: string, on?: TestServer) {
  const created = await admin("POST", "/api/v1/agents", { name }, on);
  expect(created.status).toBe(201);
  const token = await admin("POST", `/api/v1/agents/${created.body.agent.id}/tokens`, { name: "worker" }, on);
  expect(token.status).toBe(201);
  return { id: created.body.agent.id as string, token: token.body.token as string };
}

async function createPoolTasks(count: number, prefix: string) {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const on = live()[i % live().length] as TestServer;
    const reply = await admin("POST", "/api/v1/tasks", { title: `${prefix} ${i}` }, on);
    expect(reply.status).toBe(201);
    ids.push(reply.body.task.id);
  }
  return ids;
}

/**
 * Workers drain the pool through every live instance in turn until `done()`; a
 * worker whose instance died moves on to the next one (as behind a load balancer).
 */
async function drain(workers: Array<{ id: string; token: string }>, done: (completedBy: Map<string, string[]>) => Promise<boolean>) {
  const completedBy = new Map<string, string[]>();
  const errors: string[] = [];
  await Promise.all(
    workers.map(async (worker, w) => {
      let turn = w;
      while (!(await done(completedBy))) {
        const servers = live();
        const on = servers[turn++ % servers.length] as TestServer;
        try {
          const poll = await call(on.baseUrl, worker.token, "GET", "/api/worker/poll?waitMs=500");
          if (poll.status === 204) continue;
          if (poll.status !== 200) {
            errors.push(`poll ${poll.status} ${JSON.stringify(poll.body)}`);
            continue;
          }
          const id = poll.body.task.id as string;
          // Completed through the next instance: the claim and the completion need not share one.
          for (let attempt = 0; ; attempt++) {
            const other = live()[turn % live().length] as TestServer;
            try {
              const finished = await call(other.baseUrl, worker.token, "POST", `/api/worker/tasks/${id}/complete`, { output: "done" });
              // A retry after a dead instance may find its own completion already committed.
              const alreadyDone = attempt > 0 && finished.status === 409;
              if (finished.status !== 200 && !alreadyDone) errors.push(`complete ${finished.status} ${JSON.stringify(finished.body)}`);
              break;
            } catch (error) {
              if (attempt > 5) throw error;
              turn++;
            }
          }
          completedBy.set(id, [...(completedBy.get(id) ?? []), worker.id]);
        } catch {
          // That instance is gone (killed): the next turn uses another.
        }
      }
    }),
  );
  return { completedBy, errors };
}

async function leaderPid(): Promise<number> {
  for (let i = 0; i < 100; i++) {
    const row = await sql.get<{ name: string }>(
      `SELECT a.application_name AS name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
       WHERE l.locktype = 'advisory' AND l.granted AND a.application_name LIKE 'swarmdeck-leader:%'
         AND a.datname = current_database()`,
    );
    if (row) return Number(row.name.split(":")[1]);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error("no instance holds the background-jobs lock");
}

async function runsOf(scheduleId: string) {
  return (await admin("GET", `/api/v1/schedules/${scheduleId}`)).body.runs as Array<{ scheduledFor: string; taskId: string }>;
}

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  throw new Error(`timed out waiting for ${what}`);
}

beforeAll(async () => {
  ensureBuild();
  database = await createPostgresDatabase("swarmdeck_cluster");
  offset = SERVER_START - Date.now();
  const env = {
    SWARMDECK_CLOCK_OFFSET_MS: String(offset),
    SWARMDECK_SCHEDULER_TICK_MS: "300",
    SWARMDECK_AGENT_OFFLINE_MS: "3600000",
    // A claim committed by the killed instance whose answer never reached its worker goes back to the queue.
    SWARMDECK_STALL_TIMEOUT_MS: "8000",
    SWARMDECK_STALL_SWEEP_MS: "1000",
  };
  for (let i = 0; i < INSTANCES; i++) {
    instances.push(await startTestServer({ databaseUrl: database.url, env }));
  }
  adminToken = (instances[0] as TestServer).adminToken;
  sql = openTestDb(database.url);
});

afterAll(async () => {
  await sql?.close();
  for (const server of instances) await server.stop();
  instances = [];
  await database?.drop();
});

describe(`${INSTANCES} app instances on one PostgreSQL database`, () => {
  it("claims every pool task exactly once, whichever instance each poll reaches", async () => {
    const workers = await Promise.all(Array.from({ length: 9 }, (_, i) => agentWithToken(`claimer-${i}-${Date.now().toString(36)}`)));
    const ids = await createPoolTasks(120, "Pool task");
    const wanted = new Set(ids);
    const { completedBy, errors } = await drain(workers, async (done) => [...wanted].every((id) => done.has(id)));
    expect(errors).toEqual([]);
    for (const id of ids) expect(completedBy.get(id)).toHaveLength(1);
    const claims = await sql.all<{ taskId: string; n: number }>(
      `SELECT "taskId", COUNT(*) AS n FROM "TaskEvent" WHERE "type" = 'claimed' GROUP BY "taskId" HAVING COUNT(*) > 1`,
    );
    expect(claims).toEqual([]);
    const states = await sql.all<{ status: string; attempts: number; n: number }>(
      `SELECT "status", "attempts", COUNT(*) AS n FROM "Task" WHERE "title" LIKE 'Pool task %' GROUP BY "status", "attempts"`,
    );
    expect(states).toEqual([{ status: "completed", attempts: 1, n: ids.length }]);
  });

  it("wakes a long poll on one instance for a task created on another", async () => {
    const [first, second] = instances as [TestServer, TestServer];
    const worker = await agentWithToken(`sleeper-${Date.now().toString(36)}`);
    // The poll waits less than the safety re-check (5 s): only a wake-up can bring it the task.
    const poll = call(second.baseUrl, worker.token, "GET", "/api/worker/poll?waitMs=4000");
    await new Promise((resolve) => setTimeout(resolve, 300));
    const task = await admin("POST", "/api/v1/tasks", { title: "For the sleeper", agentId: worker.id }, first);
    expect(task.status).toBe(201);
    const reply = await poll;
    expect(reply.status).toBe(200);
    expect(reply.body.task.id).toBe(task.body.task.id);
  });

  it("keeps one audit chain while every instance appends at once", async () => {
    // More appends at once, with text the chain's hash must take byte for byte (PostgreSQL hashes it in SQL).
    const titles = ['Déploiement ☃ "quoted" \\ back', "日本語のタスク 🚀", "tab\tand\u2028separator"];
    const created = await Promise.all(
      live().flatMap((on, i) => titles.map((title) => admin("POST", "/api/v1/tasks", { title: `${title} ${i}` }, on))),
    );
    for (const reply of created) expect(reply.status).toBe(201);
    const verify = await admin("GET", "/api/v1/audit/verify");
    expect(verify.status).toBe(200);
    const { n } = (await sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM "AuditEvent"')) as { n: number };
    // Claims and completions of the first test alone wrote 240 events, from three processes.
    expect(n).toBeGreaterThan(240);
    expect(verify.body).toEqual({ ok: true, checked: n, brokenAt: null });
    // Out of the pool the next test drains.
    for (const reply of created)
      expect((await admin("PATCH", `/api/v1/tasks/${reply.body.task.id}`, { action: "cancel" })).status).toBe(200);
  });

  it("fires a due schedule once across the instances, and after SIGKILL of the leader the rest carry on", async () => {
    // Ten schedules due at the same slot, each for an agent whose worker has called in.
    const slot = nextSlot();
    const agents = await Promise.all(Array.from({ length: 10 }, (_, i) => agentWithToken(`sched-${i}-${Date.now().toString(36)}`)));
    const schedules: string[] = [];
    for (const [i, agent] of agents.entries()) {
      const on = live()[i % live().length] as TestServer;
      const registered = await call(on.baseUrl, agent.token, "POST", "/api/worker/register", {
        version: "test",
        hostname: "here",
        harness: "command",
      });
      expect(registered.status).toBe(200);
      const created = await admin("POST", "/api/v1/schedules", {
        name: `Standup ${i}`,
        cron: slot.cron,
        enabled: true,
        agentId: agent.id,
        taskTitle: `Standup ${i}`,
        taskDescription: "Say what changed.",
      });
      expect(created.status).toBe(201);
      schedules.push(created.body.schedule.id);
    }
    await waitFor(async () => (await Promise.all(schedules.map(runsOf))).every((runs) => runs.length >= 1), "the first slot", 2 * MINUTE);
    // Let every instance's scheduler tick a few more times: still one run and one task each.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    for (const id of schedules) {
      const runs = await runsOf(id);
      expect(runs.map((run) => run.scheduledFor)).toEqual([new Date(slot.at).toISOString()]);
      const tasks = await sql.all<{ id: string }>('SELECT "id" FROM "Task" WHERE "scheduleId" = ?', [id]);
      expect(tasks).toHaveLength(1);
    }

    // The instance running the background jobs dies mid-drain.
    const workers = await Promise.all(Array.from({ length: 6 }, (_, i) => agentWithToken(`survivor-${i}-${Date.now().toString(36)}`)));
    const ids = await createPoolTasks(90, "After the crash");
    const wanted = new Set(ids);
    let completed = 0;
    const draining = drain(workers, async () => {
      completed = (
        (await sql.get<{ n: number }>(
          `SELECT COUNT(*) AS n FROM "Task" WHERE "title" LIKE 'After the crash %' AND "status" = 'completed'`,
        )) as {
          n: number;
        }
      ).n;
      return completed >= wanted.size;
    });
    await waitFor(async () => completed >= 15, "the drain to start");
    const leader = await leaderPid();
    const victim = instances.find((server) => server.pid === leader);
    expect(victim).toBeDefined();
    await victim?.kill("SIGKILL");
    (victim as TestServer).pid = 0;

    const { completedBy, errors } = await draining;
    expect(errors).toEqual([]);
    const states = await sql.all<{ status: string; n: number }>(
      `SELECT "status", COUNT(*) AS n FROM "Task" WHERE "title" LIKE 'After the crash %' GROUP BY "status"`,
    );
    expect(states).toEqual([{ status: "completed", n: ids.length }]);
    const doubles = await sql.all<{ taskId: string }>(
      `SELECT e."taskId" FROM "TaskEvent" e JOIN "Task" t ON t."id" = e."taskId"
       WHERE t."title" LIKE 'After the crash %' AND e."type" = 'completed' GROUP BY e."taskId" HAVING COUNT(*) > 1`,
    );
    expect(doubles).toEqual([]);
    expect(completedBy.size).toBeGreaterThan(0);

    // Another instance takes the background jobs over, and the next slot fires once.
    const next = await leaderPid();
    expect(next).not.toBe(leader);
    expect(live().map((server) => server.pid)).toContain(next);
    // Their agents' first tasks are still open, which would skip the slot: close them first.
    for (const id of schedules.slice(0, 3)) {
      const [run] = await runsOf(id);
      expect((await admin("PATCH", `/api/v1/tasks/${run?.taskId}`, { action: "cancel" })).status).toBe(200);
    }
    const second = nextSlot();
    const later = await Promise.all(
      agents.slice(0, 3).map((agent, i) =>
        admin("POST", "/api/v1/schedules", {
          name: `After the crash ${i}`,
          cron: second.cron,
          enabled: true,
          agentId: agent.id,
          taskTitle: `Late standup ${i}`,
        }),
      ),
    );
    const laterIds = later.map((reply) => {
      expect(reply.status).toBe(201);
      return reply.body.schedule.id as string;
    });
    await waitFor(
      async () => (await Promise.all(laterIds.map(runsOf))).every((runs) => runs.length >= 1),
      "the slot after the crash",
      2 * MINUTE,
    );
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    for (const id of laterIds) {
      expect((await runsOf(id)).map((run) => run.scheduledFor)).toEqual([new Date(second.at).toISOString()]);
    }

    const verify = await admin("GET", "/api/v1/audit/verify");
    expect(verify.body).toMatchObject({ ok: true, brokenAt: null });
  });
});

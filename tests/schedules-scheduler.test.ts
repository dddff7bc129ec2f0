// The scheduler under a controlled clock (SWARMDECK_CLOCK_OFFSET_MS): a slot fires
// on time, once; a restart does not fire it again; slots missed while the app was
// down fire once, not once per slot. Runs its own servers on one database (a
// file, or a PostgreSQL database it drops at the end).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { ensureBuild } from "../scripts/launch";
import { openTestDb, postgresAdminUrl } from "./support/test-db";
import { startTestServer, type TestServer } from "./support/test-server";

const DAY = 86_400_000;
const FIRST_SLOT = "2030-01-07T09:00:00.000Z"; // a Monday
const dataDir = mkdtempSync(path.join(tmpdir(), "swarmdeck-scheduler-"));
let running: TestServer | null = null;
/** The database of the first server, which every restart reuses. */
let databaseUrl: string | undefined;

async function start(offsetMs: number) {
  running = await startTestServer({
    dataDir,
    keepData: true,
    databaseUrl,
    env: { SWARMDECK_CLOCK_OFFSET_MS: String(offsetMs), SWARMDECK_SCHEDULER_TICK_MS: "300", SWARMDECK_AGENT_OFFLINE_MS: "3600000" },
  });
  databaseUrl = running.databaseUrl;
  return running;
}

async function stop() {
  await running?.stop();
  running = null;
}

async function call(s: TestServer, method: string, url: string, body?: unknown) {
  const response = await fetch(`${s.baseUrl}${url}`, {
    method,
    headers: { authorization: `Bearer ${s.adminToken}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: response.status, body: response.status === 204 ? null : await response.json() };
}

async function runsOf(s: TestServer, id: string) {
  return (await call(s, "GET", `/api/v1/schedules/${id}`)).body.runs as Array<{
    scheduledFor: string;
    firedAt: string;
    trigger: string;
    taskId: string;
  }>;
}

async function waitForRuns(s: TestServer, id: string, count: number, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const runs = await runsOf(s, id);
    if (runs.length >= count) return runs;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  throw new Error(`schedule ${id} did not reach ${count} runs`);
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

afterAll(async () => {
  await stop();
  rmSync(dataDir, { recursive: true, force: true });
  if (databaseUrl?.startsWith("postgres")) {
    const admin = new pg.Client({ connectionString: postgresAdminUrl() });
    await admin.connect();
    try {
      await admin.query(`DROP DATABASE IF EXISTS "${new URL(databaseUrl).pathname.slice(1)}" WITH (FORCE)`);
    } finally {
      await admin.end();
    }
  }
});

describe("scheduler", () => {
  it("fires a slot on time exactly once, survives a restart, and collapses missed slots", async () => {
    // Build first (when sources changed) and create the database with a first start, timed: a start
    // (migrations, seed, boot) takes a while, more on PostgreSQL and on a busy machine. Then start the
    // server's clock 45 s plus one and a half times that before the first slot, so it is up well before the slot.
    ensureBuild();
    const began = Date.now();
    await start(0);
    await stop();
    const startMs = Date.now() - began;
    const lead = 45_000 + Math.round(1.5 * startMs);
    const offset = Date.parse(FIRST_SLOT) - lead - Date.now();
    let s = await start(offset);

    const agent = (await call(s, "POST", "/api/v1/agents", { name: `sched-${Date.now().toString(36)}` })).body.agent;
    // Its worker has called in (an offline agent's slot is skipped, see schedules-targets.test.ts).
    const token = (await call(s, "POST", `/api/v1/agents/${agent.id}/tokens`, { name: "w" })).body.token as string;
    const registered = await fetch(`${s.baseUrl}/api/worker/register`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ version: "test", hostname: "here", harness: "command" }),
    });
    expect(registered.status).toBe(200);
    const created = await call(s, "POST", "/api/v1/schedules", {
      name: "Monday retro",
      cron: "0 9 * * 1",
      enabled: true,
      agentId: agent.id,
      taskTitle: "Weekly retrospective",
      taskDescription: "Look back.",
      taskTags: ["retrospective"],
    });
    expect(created.status).toBe(201);
    const id = created.body.schedule.id as string;
    expect(created.body.schedule.nextRunAt).toBe(FIRST_SLOT);

    // Fires at 09:00 of the server's clock, once.
    let runs = await waitForRuns(s, id, 1, lead + 60_000);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ scheduledFor: FIRST_SLOT, trigger: "cron" });
    const late = Date.parse(runs[0]?.firedAt ?? "") - Date.parse(FIRST_SLOT);
    expect(late).toBeGreaterThanOrEqual(0);
    expect(late).toBeLessThan(5_000);
    await pause(1_500);
    expect(await runsOf(s, id)).toHaveLength(1);

    // Its task is there: pending for the agent, with its created event, audit event and rollup.
    const sqlite = openTestDb(s.databaseUrl);
    const task = await sqlite.all<Record<string, unknown>>(
      `SELECT "id", "title", "status", "agentId", "description" FROM "Task" WHERE "scheduleId" = ?`,
      [id],
    );
    expect(task).toEqual([
      { id: runs[0]?.taskId, title: "Weekly retrospective", status: "pending", agentId: agent.id, description: "Look back." },
    ]);
    expect(await sqlite.all(`SELECT "type", "toStatus" FROM "TaskEvent" WHERE "taskId" = ?`, [runs[0]?.taskId])).toEqual([
      { type: "created", toStatus: "pending" },
    ]);
    expect(await sqlite.get(`SELECT count(*) AS "n" FROM "AuditEvent" WHERE "action" = 'schedule.fired' AND "targetId" = ?`, [id])).toEqual(
      {
        n: 1,
      },
    );
    expect(await sqlite.get(`SELECT "created" FROM "TaskDailyRollup" WHERE "day" = '2030-01-07' AND "agentId" = ?`, [agent.id])).toEqual({
      created: 1,
    });
    await sqlite.close();
    const afterFire = (await call(s, "GET", `/api/v1/schedules/${id}`)).body.schedule;
    expect(afterFire).toMatchObject({ lastRunAt: runs[0]?.firedAt, nextRunAt: "2030-01-14T09:00:00.000Z", lastTaskId: runs[0]?.taskId });

    // Done with it: the next slot must not find it still open (that run would be skipped).
    expect((await call(s, "PATCH", `/api/v1/tasks/${runs[0]?.taskId}`, { action: "cancel" })).status).toBe(200);

    // A restart on the same database (same clock) fires nothing again.
    await stop();
    s = await start(offset);
    await pause(2_000);
    expect(await runsOf(s, id)).toHaveLength(1);

    // Down for three weeks: the three missed Monday slots fire once, as the latest.
    await stop();
    s = await start(offset + 21 * DAY + 10 * 60_000);
    runs = await waitForRuns(s, id, 2);
    await pause(1_500);
    runs = await runsOf(s, id);
    expect(runs.map((run) => run.scheduledFor)).toEqual(["2030-01-28T09:00:00.000Z", FIRST_SLOT]);
    expect((await call(s, "GET", `/api/v1/schedules/${id}`)).body.schedule.nextRunAt).toBe("2030-02-04T09:00:00.000Z");
    expect((await call(s, "PATCH", `/api/v1/tasks/${runs[0]?.taskId}`, { action: "cancel" })).status).toBe(200);

    // Run now: a manual run with its own task; the cron timing is unchanged.
    const manual = await call(s, "POST", `/api/v1/schedules/${id}/run`);
    expect(manual.status).toBe(201);
    runs = await runsOf(s, id);
    expect(runs[0]).toMatchObject({ trigger: "manual", taskId: manual.body.run.taskId });
    const db = openTestDb(s.databaseUrl);
    expect(await db.get(`SELECT count(*) AS "n" FROM "Task" WHERE "scheduleId" = ?`, [id])).toEqual({ n: 3 });
    await db.close();
    expect((await call(s, "GET", `/api/v1/schedules/${id}`)).body.schedule.nextRunAt).toBe("2030-02-04T09:00:00.000Z");
  }, 600_000);
});

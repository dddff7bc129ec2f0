// The background jobs when two app instances both believe they lead for a moment
// (a fail-over overlap, lib/jobs/leader.ts): this test process runs the
// scheduler, the alert evaluation and rollup writes on the test server's own
// database, several times at once, while the server may run the same jobs. A due
// slot still fires exactly once (one run, one task, one audit event), an alert
// opens once, and concurrent rollup writes lose no count. On PostgreSQL the
// concurrent calls race on separate connections of the pool
// (lib/schedules/scheduler.pg.ts, lib/alerts/alerts.pg.ts, lib/metrics/rollup.pg.ts);
// on SQLite they meet SQLite's write lock, as a second process would.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { admin, createAgent, server } from "./support/client";
import { openSeedDb, seedTask } from "./support/metrics-seed";
import { openTestDb, type TestDb } from "./support/test-db";

type Lib = {
  scheduler: typeof import("@/lib/schedules/scheduler");
  alerts: typeof import("@/lib/alerts/alerts");
  db: typeof import("@/lib/db");
  rollup: typeof import("@/lib/metrics/rollup");
  rollupPg: typeof import("@/lib/metrics/rollup.pg");
  pg: typeof import("@/lib/pg");
};

let lib: Lib;
let db: TestDb;

beforeAll(async () => {
  // This process becomes a second instance on the server's database.
  process.env.DATABASE_URL = server().databaseUrl;
  process.env.SWARMDECK_WAL_CHECKPOINTER = "off";
  lib = {
    scheduler: await import("@/lib/schedules/scheduler"),
    alerts: await import("@/lib/alerts/alerts"),
    db: await import("@/lib/db"),
    rollup: await import("@/lib/metrics/rollup"),
    rollupPg: await import("@/lib/metrics/rollup.pg"),
    pg: await import("@/lib/pg"),
  };
  db = openTestDb(server().databaseUrl);
});

afterAll(async () => {
  await db?.close();
  if (lib?.db.usesPostgres()) await lib.pg.pgPool().end();
});

/** An agent whose worker has just called in (a scheduled task only goes to an online agent). */
async function onlineAgent() {
  const agent = await createAgent();
  await db.run(`UPDATE "Agent" SET "lastSeenAt" = ? WHERE "id" = ?`, [new Date(), agent.id]);
  return agent;
}

describe("background jobs in a fail-over overlap", () => {
  it("fires a due slot exactly once when several instances run the scheduler at once", async () => {
    const agent = await onlineAgent();
    const created = await admin().post("/api/v1/schedules", {
      name: "Overlap retro",
      cron: "0 9 * * 1",
      enabled: true,
      agentId: agent.id,
      taskTitle: "Overlap retrospective",
    });
    expect(created.status).toBe(201);
    const id = created.body.schedule.id as string;
    // Its slot has come: due a minute ago.
    const due = new Date(Date.now() - 60_000);
    due.setUTCMilliseconds(0);
    await db.run(`UPDATE "Schedule" SET "nextRunAt" = ? WHERE "id" = ?`, [due, id]);

    const outcomes = await Promise.all(Array.from({ length: 5 }, () => lib.scheduler.runDueSchedules()));
    const mine = outcomes.flat().filter((firing) => firing.scheduleId === id);
    // The server's own scheduler may have fired it first; then no call here does.
    expect(mine.length).toBeLessThanOrEqual(1);

    const runs = await db.all<{ scheduledFor: number; status: string }>(
      `SELECT "scheduledFor", "status" FROM "ScheduleRun" WHERE "scheduleId" = ?`,
      [id],
    );
    expect(runs).toEqual([{ scheduledFor: due.getTime(), status: "created" }]);
    expect(await db.all(`SELECT "agentId", "status" FROM "Task" WHERE "scheduleId" = ?`, [id])).toEqual([
      { agentId: agent.id, status: "pending" },
    ]);
    expect(await db.get(`SELECT count(*) AS "n" FROM "AuditEvent" WHERE "action" = 'schedule.fired' AND "targetId" = ?`, [id])).toEqual({
      n: 1,
    });
    const schedule = (await admin().get(`/api/v1/schedules/${id}`)).body.schedule;
    expect(Date.parse(schedule.nextRunAt)).toBeGreaterThan(Date.now());
  });

  it("opens one alert per scope when several instances evaluate at once", async () => {
    const noisy = await createAgent();
    const seed = openSeedDb(server().databaseUrl);
    try {
      const now = Date.now() - 60_000;
      for (let i = 0; i < 4; i += 1) await seedTask(seed, { agentId: noisy.id, status: "completed", at: now, durationMs: 1000 });
      for (let i = 0; i < 8; i += 1) await seedTask(seed, { agentId: noisy.id, status: "failed", at: now, failureReason: "overlap" });
    } finally {
      await seed.close();
    }
    const results = await Promise.all(Array.from({ length: 5 }, () => lib.alerts.evaluateAlerts()));
    const fired = results.flatMap((result) => result.fired).filter((alert) => alert.agentId === noisy.id);
    expect(fired.length).toBeLessThanOrEqual(1);

    const open = await db.all<{ id: string }>(`SELECT "id" FROM "Alert" WHERE "agentId" = ? AND "resolvedAt" IS NULL`, [noisy.id]);
    expect(open).toHaveLength(1);
    expect(await db.get(`SELECT count(*) AS "n" FROM "AuditEvent" WHERE "action" = 'alert.fired' AND "agentId" = ?`, [noisy.id])).toEqual({
      n: 1,
    });
    // No scope has two open alerts.
    const scopes = await db.all<{ scope: string; agentId: string | null; n: number }>(
      `SELECT "scope", "agentId", count(*) AS "n" FROM "Alert" WHERE "resolvedAt" IS NULL GROUP BY "scope", "agentId"`,
    );
    expect(scopes.filter((row) => row.n > 1)).toEqual([]);
  });

  it("loses no count when many task changes write one day's rollup at once", async () => {
    const agentId = (await createAgent()).id;
    const at = Date.parse("2031-03-03T12:00:00Z");
    const changes = Array.from({ length: 40 }, (_, i) =>
      i % 4 === 3
        ? ({ kind: "failed", agentId, at, durationMs: 10 } as const)
        : ({ kind: "completed", agentId, at, durationMs: i % 2 ? 5 : 2000 } as const),
    );
    await Promise.all(
      changes.map((change) =>
        lib.db.usesPostgres()
          ? lib.pg.pgTransaction((sql) => lib.rollupPg.recordTaskRollupPg(sql, change))
          : lib.db.writeTransaction((sqlite) => lib.rollup.recordTaskRollup(sqlite, change)),
      ),
    );
    const row = await db.get<{ completed: number; failed: number; durationCount: number; durationSumMs: number; durationHist: string }>(
      `SELECT "completed", "failed", "durationCount", "durationSumMs", "durationHist" FROM "TaskDailyRollup" WHERE "day" = '2031-03-03' AND "agentId" = ?`,
      [agentId],
    );
    expect(row).toMatchObject({ completed: 30, failed: 10, durationCount: 30, durationSumMs: 10 * 5 + 20 * 2000 });
    const hist = JSON.parse(row?.durationHist ?? "[]") as number[];
    expect(hist.reduce((sum, n) => sum + n, 0)).toBe(30);
    expect(hist.filter((n) => n > 0)).toEqual([10, 20]);
  });
});

// The schedules API: the templates on offer, validation, enable/disable, delete, preview.
import { describe, expect, it } from "vitest";
import { admin, client, createAgent, server } from "./support/client";
import { openTestDb } from "./support/test-db";

const body = (extra: Record<string, unknown> = {}) => ({ name: "Nightly", cron: "30 2 * * *", taskTitle: "Nightly sweep", ...extra });

describe("schedules API", () => {
  it("seeds no template schedule; offers the four learning-loop templates with their targets", async () => {
    const { status, body: list } = await admin().get("/api/v1/schedules");
    expect(status).toBe(200);
    expect(list.schedules.filter((s: { templateKey: string | null }) => s.templateKey)).toEqual([]);
    const offer = await admin().get("/api/v1/schedules/templates");
    expect(offer.status).toBe(200);
    const byKey = new Map(offer.body.templates.map((t: { key: string }) => [t.key, t]));
    expect([...byKey.keys()].sort()).toEqual([
      "daily-knowledge-digest",
      "monthly-swarm-review",
      "weekly-metrics-check",
      "weekly-retrospective",
    ]);
    expect(byKey.get("weekly-retrospective")).toMatchObject({ targetKind: "all", targetDescription: "for every agent", installed: false });
    for (const key of ["daily-knowledge-digest", "monthly-swarm-review", "weekly-metrics-check"]) {
      expect(byKey.get(key)).toMatchObject({ targetKind: "leads", targetDescription: "for the lead(s)", installed: false });
    }
    const metricsCheck = byKey.get("weekly-metrics-check") as { taskDescription: string; cron: string };
    expect(metricsCheck.taskDescription).toContain("swarm swarm report");
    expect(metricsCheck.taskDescription).toContain("failure rate is above 30%");
    expect(metricsCheck.cron).toBe("0 8 * * 1");
  });

  it("creates, enables, disables and deletes a schedule, audited", async () => {
    const agent = await createAgent();
    const created = await admin().post("/api/v1/schedules", body({ agentId: agent.id, timezone: "Europe/Paris" }));
    expect(created.status).toBe(201);
    const schedule = created.body.schedule;
    expect(schedule).toMatchObject({
      enabled: false,
      nextRunAt: null,
      agentName: agent.name,
      timezone: "Europe/Paris",
      cronDescription: "every day at 02:30",
    });

    const enabled = await admin().patch(`/api/v1/schedules/${schedule.id}`, { enabled: true });
    expect(enabled.status).toBe(200);
    // 02:30 in Paris is 01:30 UTC in winter, 00:30 UTC in summer.
    expect(enabled.body.schedule.nextRunAt).toMatch(/T0[01]:30:00\.000Z$/);
    const disabled = await admin().patch(`/api/v1/schedules/${schedule.id}`, { enabled: false });
    expect(disabled.body.schedule.nextRunAt).toBeNull();

    const sqlite = openTestDb(server().databaseUrl);
    const actions = await sqlite.all<{ action: string }>(`SELECT "action" FROM "AuditEvent" WHERE "targetId" = ? ORDER BY "id"`, [
      schedule.id,
    ]);
    await sqlite.close();
    expect(actions.map((row) => row.action)).toEqual(["schedule.created", "schedule.enabled", "schedule.disabled"]);

    expect((await admin().delete(`/api/v1/schedules/${schedule.id}`)).status).toBe(204);
    expect((await admin().get(`/api/v1/schedules/${schedule.id}`)).status).toBe(404);
  });

  it("stops a schedule aimed at an agent when the agent is archived, and will not switch it on again until it is aimed elsewhere", async () => {
    const agent = await createAgent();
    const created = await admin().post("/api/v1/schedules", body({ agentId: agent.id, enabled: true }));
    expect(created.body.schedule.nextRunAt).not.toBeNull();
    const forPool = await admin().post("/api/v1/schedules", body({ name: "Pool sweep", enabled: true }));
    expect((await admin().delete(`/api/v1/agents/${agent.id}`)).status).toBe(204);

    const id = created.body.schedule.id;
    expect((await admin().get(`/api/v1/schedules/${id}`)).body.schedule).toMatchObject({ enabled: false, nextRunAt: null });
    expect((await admin().get(`/api/v1/schedules/${forPool.body.schedule.id}`)).body.schedule).toMatchObject({ enabled: true });
    const again = await admin().patch(`/api/v1/schedules/${id}`, { enabled: true });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: "conflict", message: expect.stringMatching(/agent was archived/) });
    expect((await admin().get(`/api/v1/schedules/${id}`)).body.schedule.enabled).toBe(false);
    const elsewhere = await admin().patch(`/api/v1/schedules/${id}`, { enabled: true, targetKind: "pool" });
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body.schedule).toMatchObject({ enabled: true, targetKind: "pool", agentId: null });
  });

  it("rejects a bad cron, time zone or agent with a clear 400 and writes nothing", async () => {
    const before = (await admin().get("/api/v1/schedules")).body.schedules.length;
    const badCron = await admin().post("/api/v1/schedules", body({ cron: "61 * * * *" }));
    expect(badCron.status).toBe(400);
    expect(badCron.body.error.details[0]).toMatchObject({ path: "cron" });
    expect(badCron.body.error.message).toMatch(/0-59/);
    const fields = await admin().post("/api/v1/schedules", body({ cron: "* * *" }));
    expect(fields.status).toBe(400);
    expect(fields.body.error.message).toMatch(/5 fields/);
    const badZone = await admin().post("/api/v1/schedules", body({ timezone: "Mars/Olympus" }));
    expect(badZone.status).toBe(400);
    expect(badZone.body.error.details[0]).toMatchObject({ path: "timezone" });
    const badAgent = await admin().post("/api/v1/schedules", body({ agentId: "nobody" }));
    expect(badAgent.status).toBe(400);
    const seconds = await admin().post("/api/v1/schedules", body({ cron: "0 30 2 * * *" }));
    expect(seconds.status).toBe(400);
    expect(seconds.body.error.message).toBe(
      "Six-field cron expressions (with seconds) are not supported: use 5 fields, minute hour day-of-month month day-of-week",
    );
    // The default minimum interval is 5 minutes.
    const tooOften = await admin().post("/api/v1/schedules", body({ cron: "* * * * *" }));
    expect(tooOften.status).toBe(400);
    expect(tooOften.body.error.message).toMatch(/fires every minute; a schedule may fire at most every 5 minutes/);
    const badTargets = [
      { targetKind: "agent" },
      { targetKind: "role", targetValue: "boss" },
      { targetKind: "tag", targetValue: "Not A Tag" },
      { targetKind: "tag" },
      { targetKind: "leads", targetValue: "x" },
      { targetKind: "pool", agentId: (await createAgent()).id },
      { targetKind: "everyone" },
    ];
    for (const target of badTargets) {
      const reply = await admin().post("/api/v1/schedules", body(target));
      expect(reply.status, JSON.stringify(target)).toBe(400);
      expect(reply.body.error.code).toBe("validation_failed");
    }
    const extra = await admin().post("/api/v1/schedules", body({ command: "rm -rf /" }));
    expect(extra.status).toBe(400);
    expect((await admin().get("/api/v1/schedules")).body.schedules.length).toBe(before);
  });

  it("targets one agent, the leads, every agent, a role, a tag or the pool, and says so", async () => {
    const agent = await createAgent();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ agentId: agent.id }, `for ${agent.name}`],
      [{ targetKind: "leads" }, "for the lead(s)"],
      [{ targetKind: "all" }, "for every agent"],
      [{ targetKind: "role", targetValue: "worker" }, "for every worker agent"],
      [{ targetKind: "tag", targetValue: "frontend" }, "for every agent tagged frontend"],
      [{}, "for the pool (any agent)"],
    ];
    for (const [target, description] of cases) {
      const reply = await admin().post("/api/v1/schedules", body(target));
      expect(reply.status).toBe(201);
      expect(reply.body.schedule.targetDescription).toBe(description);
      await admin().delete(`/api/v1/schedules/${reply.body.schedule.id}`);
    }
    // A change of target: from one agent to a tag drops the agent.
    const made = await admin().post("/api/v1/schedules", body({ agentId: agent.id }));
    const moved = await admin().patch(`/api/v1/schedules/${made.body.schedule.id}`, { targetKind: "tag", targetValue: "docs" });
    expect(moved.status).toBe(200);
    expect(moved.body.schedule).toMatchObject({ targetKind: "tag", targetValue: "docs", agentId: null });
    const back = await admin().patch(`/api/v1/schedules/${made.body.schedule.id}`, { agentId: agent.id });
    expect(back.body.schedule).toMatchObject({ targetKind: "agent", targetValue: null, agentId: agent.id });
    await admin().delete(`/api/v1/schedules/${made.body.schedule.id}`);
  });

  it("previews a cron expression with its next runs", async () => {
    const ok = await admin().get(`/api/v1/schedules/preview?cron=${encodeURIComponent("0 9 * * 1")}&timezone=UTC`);
    expect(ok.body).toMatchObject({ valid: true, description: "every Monday at 09:00" });
    expect(ok.body.next).toHaveLength(5);
    for (const at of ok.body.next) expect(new Date(at).getUTCDay()).toBe(1);
    const bad = await admin().get(`/api/v1/schedules/preview?cron=${encodeURIComponent("0 25 * * *")}`);
    expect(bad.body).toMatchObject({ valid: false, field: "cron", next: [] });
    expect(bad.body.error).toMatch(/0-23/);
    // Which field a problem is about, so a form shows it under that one.
    const zone = await admin().get(`/api/v1/schedules/preview?cron=${encodeURIComponent("0 9 * * 1")}&timezone=Mars%2FOlympus`);
    expect(zone.body).toEqual({ valid: false, error: 'Unknown time zone "Mars/Olympus"', field: "timezone", description: null, next: [] });
    expect(ok.body.field).toBeNull();
    const often = await admin().get(`/api/v1/schedules/preview?cron=${encodeURIComponent("*/2 * * * *")}`);
    expect(often.body).toMatchObject({ valid: false });
    expect(often.body.error).toMatch(/fires every 2 minutes/);
  });

  it("refuses a task title the tasks API refuses (control or text-direction characters), at create and at change", async () => {
    const before = (await admin().get("/api/v1/schedules")).body.schedules.length;
    for (const taskTitle of ["Nightly\nsweep", "h\u202Eexe.txt", "beep\u0007"]) {
      const direct = await admin().post("/api/v1/tasks", { title: taskTitle });
      expect(direct.status).toBe(400);
      const reply = await admin().post("/api/v1/schedules", body({ taskTitle }));
      expect(reply.status, JSON.stringify(taskTitle)).toBe(400);
      expect(reply.body.error).toMatchObject({ code: "validation_failed", details: [{ path: "taskTitle" }] });
    }
    expect((await admin().get("/api/v1/schedules")).body.schedules.length).toBe(before);
    const created = await admin().post("/api/v1/schedules", body({ name: "Title check" }));
    const changed = await admin().patch(`/api/v1/schedules/${created.body.schedule.id}`, { taskTitle: "a\u202Eb" });
    expect(changed.status).toBe(400);
    expect((await admin().get(`/api/v1/schedules/${created.body.schedule.id}`)).body.schedule.taskTitle).toBe("Nightly sweep");
  });

  it("runs a schedule now and creates its task, unassigned without a target", async () => {
    const created = await admin().post("/api/v1/schedules", body({ name: "Pool task" }));
    const run = await admin().post(`/api/v1/schedules/${created.body.schedule.id}/run`);
    expect(run.status).toBe(201);
    const task = await admin().get(`/api/v1/tasks/${run.body.run.taskId}`);
    expect(task.status).toBe(200);
    expect(task.body.task).toMatchObject({ title: "Nightly sweep", status: "unassigned", agentId: null });
    const detail = await admin().get(`/api/v1/schedules/${created.body.schedule.id}`);
    expect(detail.body.runs).toHaveLength(1);
    expect(detail.body.schedule.lastTaskId).toBe(run.body.run.taskId);
    expect((await admin().post("/api/v1/schedules/unknown/run")).status).toBe(404);
  });

  it("changes a schedule's timing and name in one PATCH, as the edit form sends it, and refuses a too frequent cron without a change", async () => {
    const created = await admin().post("/api/v1/schedules", body({ name: "Retimed" }));
    const id = created.body.schedule.id;
    const patched = await admin().patch(`/api/v1/schedules/${id}`, { name: "Retimed weekly", cron: "0 9 * * 1", timezone: "Europe/Paris" });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.schedule).toMatchObject({ name: "Retimed weekly", cron: "0 9 * * 1", timezone: "Europe/Paris" });
    const often = await admin().patch(`/api/v1/schedules/${id}`, { cron: "*/2 * * * *" });
    expect(often.status).toBe(400);
    expect(often.body.error.code).toBe("validation_failed");
    expect(often.body.error.details[0].path).toBe("cron");
    expect((await admin().get(`/api/v1/schedules/${id}`)).body.schedule.cron).toBe("0 9 * * 1");
  });

  it("needs an operator to change anything", async () => {
    expect((await client().get("/api/v1/schedules")).status).toBe(401);
    expect((await client("sdo_not_a_token").post("/api/v1/schedules", body())).status).toBe(401);
  });
});

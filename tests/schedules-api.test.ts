// The schedules API: the seeded templates, validation, enable/disable, delete, preview.
import { describe, expect, it } from "vitest";
import { admin, client, createAgent, server } from "./support/client";
import { openTestDb } from "./support/metrics-seed";

const body = (extra: Record<string, unknown> = {}) => ({ name: "Nightly", cron: "30 2 * * *", taskTitle: "Nightly sweep", ...extra });

describe("schedules API", () => {
  it("ships the three templates, disabled", async () => {
    const { status, body: list } = await admin().get("/api/v1/schedules");
    expect(status).toBe(200);
    const templates = list.schedules.filter((s: { templateKey: string | null }) => s.templateKey);
    expect(
      templates
        .map((s: { templateKey: string; enabled: boolean; nextRunAt: string | null }) => [s.templateKey, s.enabled, s.nextRunAt])
        .sort(),
    ).toEqual([
      ["daily-knowledge-digest", false, null],
      ["weekly-metrics-check", false, null],
      ["weekly-retrospective", false, null],
    ]);
    const metricsCheck = templates.find((s: { templateKey: string }) => s.templateKey === "weekly-metrics-check");
    expect(metricsCheck.taskDescription).toContain("/api/v1/metrics/weekly-report");
    expect(metricsCheck.cronDescription).toBe("every Monday at 08:00");
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

    const sqlite = openTestDb(server().dbFile);
    const actions = sqlite.prepare("SELECT action FROM AuditEvent WHERE targetId = ? ORDER BY id").all(schedule.id) as Array<{
      action: string;
    }>;
    sqlite.close();
    expect(actions.map((row) => row.action)).toEqual(["schedule.created", "schedule.enabled", "schedule.disabled"]);

    expect((await admin().delete(`/api/v1/schedules/${schedule.id}`)).status).toBe(204);
    expect((await admin().get(`/api/v1/schedules/${schedule.id}`)).status).toBe(404);
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
    const extra = await admin().post("/api/v1/schedules", body({ command: "rm -rf /" }));
    expect(extra.status).toBe(400);
    expect((await admin().get("/api/v1/schedules")).body.schedules.length).toBe(before);
  });

  it("previews a cron expression with its next runs", async () => {
    const ok = await admin().get(`/api/v1/schedules/preview?cron=${encodeURIComponent("0 9 * * 1")}&timezone=UTC`);
    expect(ok.body).toMatchObject({ valid: true, description: "every Monday at 09:00" });
    expect(ok.body.next).toHaveLength(5);
    for (const at of ok.body.next) expect(new Date(at).getUTCDay()).toBe(1);
    const bad = await admin().get(`/api/v1/schedules/preview?cron=${encodeURIComponent("0 25 * * *")}`);
    expect(bad.body).toMatchObject({ valid: false, next: [] });
    expect(bad.body.error).toMatch(/0-23/);
  });

  it("runs a schedule now and creates its task, unassigned without a target", async () => {
    const created = await admin().post("/api/v1/schedules", body({ name: "Pool task" }));
    const run = await admin().post(`/api/v1/schedules/${created.body.schedule.id}/run`);
    expect(run.status).toBe(201);
    expect(run.body.run.taskId).toBeTruthy();
    const detail = await admin().get(`/api/v1/schedules/${created.body.schedule.id}`);
    expect(detail.body.runs).toHaveLength(1);
    expect(detail.body.schedule.lastTaskId).toBe(run.body.run.taskId);
    expect((await admin().post("/api/v1/schedules/unknown/run")).status).toBe(404);
  });

  it("needs an operator to change anything", async () => {
    expect((await client().get("/api/v1/schedules")).status).toBe(401);
    expect((await client("sdo_not_a_token").post("/api/v1/schedules", body())).status).toBe(401);
  });
});

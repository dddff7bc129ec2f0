// Schedules that fan out per agent, under a controlled clock (SWARMDECK_CLOCK_OFFSET_MS):
// the learning-loop templates are offered with the first lead, not seeded; the
// weekly retrospective gives every online agent its own task and says why the
// offline one got none; a tag, a role, the leads and the pool each get theirs; a
// run while the last run's tasks are still open is skipped, saying so.
// Its own server on a fresh database (no agents, no schedules of other tests).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuild } from "../scripts/launch";
import { startTestServer, type TestServer } from "./support/test-server";
import { agentWithToken, call, type Target } from "./worker-helpers";

const SLOT = "2030-01-07T09:00:00.000Z"; // a Monday, the retrospective's slot
let running: TestServer;
let target: Target;

async function online(agent: { token: string }) {
  const reply = await call(target, "POST", "/api/worker/register", { version: "test", hostname: "here", harness: "command" }, agent.token);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
}

async function runsOf(id: string) {
  const reply = await call(target, "GET", `/api/v1/schedules/${id}/runs`);
  expect(reply.status).toBe(200);
  return reply.body.runs as Array<{
    status: string;
    trigger: string;
    scheduledFor: string;
    tasks: Array<{ id: string; agentName: string | null; status: string; title: string }>;
    skips: Array<{ agentName: string | null; reason: string }>;
  }>;
}

async function waitForRun(id: string, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const runs = await runsOf(id);
    if (runs.length > 0) return runs;
    if (Date.now() > deadline) throw new Error(`schedule ${id} never fired`);
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

beforeAll(async () => {
  ensureBuild();
  // The server's clock starts 75 s before the Monday 09:00 slot (time to set the swarm up).
  const offset = Date.parse(SLOT) - 75_000 - Date.now();
  running = await startTestServer({
    env: { SWARMDECK_CLOCK_OFFSET_MS: String(offset), SWARMDECK_SCHEDULER_TICK_MS: "300", SWARMDECK_AGENT_OFFLINE_MS: "600000" },
  });
  target = running;
});
afterAll(async () => {
  await running?.stop();
});

describe("schedule targets", { timeout: 180_000 }, () => {
  it("offers the templates with the first lead only, then fans each firing out per agent", async () => {
    const nothing = await call(target, "GET", "/api/v1/schedules");
    expect(nothing.body.schedules).toEqual([]);
    const before = await call(target, "GET", "/api/v1/schedules/templates");
    expect(before.body.leadExists).toBe(false);
    const tooEarly = await call(target, "POST", "/api/v1/schedules/templates", { keys: ["weekly-retrospective"] });
    expect(tooEarly.status).toBe(409);
    expect(tooEarly.body.error.message).toMatch(/Create a lead agent first/);

    const ann = await agentWithToken(target);
    const bea = await agentWithToken(target, { capabilities: ["frontend"] });
    const cid = await agentWithToken(target);
    const firstLead = await call(target, "POST", "/api/v1/agents", { name: "lead-one", role: "lead" });
    expect(firstLead.status).toBe(201);
    expect(firstLead.body.scheduleOffer.templates.map((t: { key: string }) => t.key).sort()).toEqual([
      "daily-knowledge-digest",
      "monthly-swarm-review",
      "weekly-metrics-check",
      "weekly-retrospective",
    ]);
    const worker = await call(target, "POST", "/api/v1/agents", { name: "plain-worker" });
    expect(worker.body.scheduleOffer).toBeNull();
    const secondLead = await call(target, "POST", "/api/v1/agents", { name: "lead-two", role: "lead" });
    expect(secondLead.body.scheduleOffer).toBeNull();
    await call(target, "DELETE", `/api/v1/agents/${worker.body.agent.id}`);
    await call(target, "DELETE", `/api/v1/agents/${secondLead.body.agent.id}`);
    const leadToken = await call(target, "POST", `/api/v1/agents/${firstLead.body.agent.id}/tokens`, { name: "lead worker" });
    const lead = { id: firstLead.body.agent.id as string, name: "lead-one", token: leadToken.body.token as string };

    const installed = await call(target, "POST", "/api/v1/schedules/templates", {
      keys: ["weekly-retrospective", "daily-knowledge-digest"],
    });
    expect(installed.status).toBe(201);
    const retro = installed.body.schedules.find((s: { templateKey: string }) => s.templateKey === "weekly-retrospective");
    expect(retro).toMatchObject({ enabled: true, targetKind: "all", nextRunAt: SLOT });
    const digest = installed.body.schedules.find((s: { templateKey: string }) => s.templateKey === "daily-knowledge-digest");
    expect(digest).toMatchObject({ enabled: true, targetKind: "leads", agentId: null });
    const again = await call(target, "POST", "/api/v1/schedules/templates", { keys: ["weekly-retrospective"] });
    expect(again.body).toMatchObject({ schedules: [], alreadyInstalled: ["weekly-retrospective"] });

    const mk = async (name: string, extra: Record<string, unknown>) => {
      const reply = await call(target, "POST", "/api/v1/schedules", {
        name,
        cron: "0 9 * * 1",
        enabled: true,
        taskTitle: name,
        ...extra,
      });
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
      return reply.body.schedule.id as string;
    };
    const byTag = await mk("Frontend check", { targetKind: "tag", targetValue: "frontend" });
    const byRole = await mk("Worker sweep", { targetKind: "role", targetValue: "worker" });
    const leads = await mk("Lead review", { targetKind: "leads" });
    const pool = await mk("Pool chore", {});

    // Everyone but cid has a worker that called in.
    for (const agent of [ann, bea, lead]) await online(agent);

    const retroRuns = await waitForRun(retro.id);
    expect(retroRuns).toHaveLength(1);
    expect(retroRuns[0]).toMatchObject({ status: "partial", trigger: "cron", scheduledFor: SLOT });
    expect(retroRuns[0]?.tasks.map((t) => t.agentName).sort()).toEqual([ann.name, bea.name, lead.name].sort());
    for (const task of retroRuns[0]?.tasks ?? []) expect(task).toMatchObject({ status: "pending", title: "Weekly retrospective" });
    expect(retroRuns[0]?.skips).toEqual([
      { agentId: cid.id, agentName: cid.name, reason: "The agent is offline (its worker has never called in)" },
    ]);

    const names = async (id: string) => (await waitForRun(id))[0]?.tasks.map((t) => t.agentName).sort();
    expect(await names(byTag)).toEqual([bea.name]);
    expect(await names(byRole)).toEqual([ann.name, bea.name].sort());
    expect((await runsOf(byRole))[0]?.skips.map((s) => s.agentName)).toEqual([cid.name]);
    expect(await names(leads)).toEqual([lead.name]);
    expect(await names(pool)).toEqual([null]);

    // Run now while last run's tasks are open: every target is skipped, each saying why.
    const now = await call(target, "POST", `/api/v1/schedules/${leads}/run`);
    expect(now.status).toBe(200);
    expect(now.body.run.status).toBe("skipped");
    expect(now.body.run.skips[0].reason).toMatch(/^The previous run's task \S+ is still pending$/);
    const poolAgain = await call(target, "POST", `/api/v1/schedules/${pool}/run`);
    expect(poolAgain.body.run.skips[0]).toMatchObject({ agentName: null, reason: expect.stringMatching(/is still unassigned$/) });
    const history = await runsOf(leads);
    expect(history.map((run) => [run.trigger, run.status])).toEqual([
      ["manual", "skipped"],
      ["cron", "created"],
    ]);
    const detail = await call(target, "GET", `/api/v1/schedules/${leads}`);
    expect(detail.body.schedule.lastRunStatus).toBe("skipped");
    expect(detail.body.schedule.lastTaskId).toBe(history[1]?.tasks[0]?.id);
  });
});

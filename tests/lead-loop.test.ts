// The lead's learning loop end to end (reference 001: P6, P11, Gap 10): on a
// seeded week of history, a scripted lead agent run by the real worker uses the
// `swarm` CLI only to run the weekly metrics check and the daily digest, finds the
// recurring failure, and gives the one agent that keeps failing a learning. That
// agent's next task prompt carries it; another agent's does not, and a worker
// agent's own `swarm swarm` and `swarm learn` are refused.
// Its own server: the week's numbers must be this test's alone.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findTemplate } from "@/lib/schedules/templates";
import { FIXTURES, spawnWorker } from "../worker/test-support/run-worker";
import { openSeedDb, seedTask } from "./support/metrics-seed";
import { startTestServer, type TestServer } from "./support/test-server";
import { agentWithToken, call, createTask, getTask, identity, type Target } from "./worker-helpers";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const RECURRING = "Lint failed: unused import in the payments module";

let running: TestServer;
let target: Target;
const dirs: string[] = [];

function runWorker(token: string, command: string) {
  const dir = mkdtempSync(path.join(tmpdir(), "swarmdeck-lead-"));
  dirs.push(dir);
  return spawnWorker({ SWARMDECK_URL: target.baseUrl, SWARMDECK_TOKEN: token, WORKSPACE_DIR: dir, AGENT_COMMAND: command });
}

async function runOnce(token: string, command: string, taskId: string) {
  const run = runWorker(token, command);
  expect(await run.exited, run.log()).toBe(0);
  const detail = await getTask(target, taskId);
  expect(detail.task.status, run.log()).toBe("completed");
  return detail.task.output as string;
}

const leadCommand = `${process.execPath} ${path.join(FIXTURES, "lead", "lead-agent.mjs")}`;
const echoCommand = path.join(FIXTURES, "agents", "echo-prompt.sh");

beforeAll(async () => {
  running = await startTestServer();
  target = running;
});
afterAll(async () => {
  await running?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("the lead's learning loop", { timeout: 180_000 }, () => {
  it("finds the recurring failure, teaches the one agent that keeps failing, and only that agent's next prompt carries it", async () => {
    const lead = await agentWithToken(target, { role: "lead" });
    const alice = await agentWithToken(target, { securityProfile: "power" });
    const bob = await agentWithToken(target, { securityProfile: "power" });
    const carol = await agentWithToken(target);

    // A week of history: alice fails the same way on four days; the others do fine.
    const now = Date.now();
    const sqlite = openSeedDb(running.databaseUrl);
    try {
      for (const daysAgo of [1, 2, 3, 5]) {
        await seedTask(sqlite, {
          agentId: alice.id,
          status: "failed",
          at: now - daysAgo * DAY,
          failureReason: `${RECURRING}\nsrc/pay.ts:${daysAgo}`,
        });
      }
      await seedTask(sqlite, { agentId: alice.id, status: "completed", at: now - 4 * DAY, durationMs: 60_000 });
      for (const daysAgo of [2, 3, 4])
        await seedTask(sqlite, { agentId: carol.id, status: "completed", at: now - daysAgo * DAY, durationMs: 60_000 });
      for (const daysAgo of [8, 9, 10])
        await seedTask(sqlite, { agentId: alice.id, status: "completed", at: now - daysAgo * DAY, durationMs: 60_000 });
      const recent = await seedTask(sqlite, {
        agentId: bob.id,
        status: "completed",
        at: now - 3 * HOUR,
        durationMs: 60_000,
        title: "Cut the release",
      });
      await sqlite.run(`UPDATE "Task" SET "summary" = ?, "output" = ? WHERE "id" = ?`, [
        "Releases are cut from main with npm run release; the tag is signed.",
        "released 1.4.0",
        recent,
      ]);
      await seedTask(sqlite, { agentId: bob.id, status: "completed", at: now - 3 * DAY, durationMs: 60_000, title: "Old news" });
    } finally {
      await sqlite.close();
    }

    // The lead's scheduled work, as the shipped templates word it.
    const fromTemplate = (key: string) => {
      const template = findTemplate(key);
      if (!template) throw new Error(`no template ${key}`);
      return { title: template.taskTitle, description: template.taskDescription, type: template.taskType, agentId: lead.id };
    };
    const check = await createTask(target, fromTemplate("weekly-metrics-check"));
    const checkOutput = await runOnce(lead.token, leadCommand, check);
    expect(checkOutput).toContain("Failure rate this week: 40%");
    expect(checkOutput).toContain(`Recurring failure (4x): ${RECURRING}`);
    expect(checkOutput).toContain(`It keeps coming from ${alice.name} (4 of 4).`);
    expect(checkOutput).toContain("CLAUDE.md note applied");
    expect(checkOutput).toMatch(new RegExp(`${alice.name}\\s+worker`));

    const digest = await createTask(target, fromTemplate("daily-knowledge-digest"));
    const digestOutput = await runOnce(lead.token, leadCommand, digest);
    expect(digestOutput).toContain("Daily digest: 2 task(s) completed in the last 24 hours, 1 promoted to swarm memory.");
    expect(digestOutput).toContain(`- ${bob.name}: Cut the release`);
    const swarmMemories = await call(target, "GET", "/api/v1/memories?scope=swarm&source=manual");
    expect(swarmMemories.body.memories.map((m: { name: string }) => m.name)).toContain("Digest: Cut the release");

    // The learning: alice's memory and CLAUDE.md (power profile: applied), nobody else's.
    const learned = await call(target, "GET", `/api/v1/memories?agentId=${alice.id}&source=lead_feedback`);
    expect(learned.body.memories).toHaveLength(1);
    expect(learned.body.memories[0].content).toContain(`[Feedback from lead ${lead.name}] Category: mistake-pattern`);
    expect((await identity(target, alice.id, "claude")).content).toContain(
      `## Feedback from Lead\n\n- (mistake-pattern) Your tasks keep failing with "${RECURRING}"`,
    );
    expect((await identity(target, bob.id, "claude")).content).not.toContain("Feedback from Lead");

    // The next tasks: alice's prompt carries the learning, bob's does not; neither may act as a lead.
    const title = "Add a refund endpoint";
    const aliceTask = await createTask(target, { title, agentId: alice.id });
    const aliceSaw = await runOnce(alice.token, echoCommand, aliceTask);
    expect(aliceSaw).toContain("## Feedback from your lead");
    expect(aliceSaw).toContain("Run the linter and remove unused imports before you finish a task.");
    const bobTask = await createTask(target, { title, agentId: bob.id });
    const bobSaw = await runOnce(bob.token, echoCommand, bobTask);
    expect(bobSaw).toContain(`# Task: ${title}`);
    expect(bobSaw).not.toContain("Run the linter and remove unused imports");
    expect(bobSaw).not.toContain("## Feedback from your lead");
    for (const saw of [aliceSaw, bobSaw]) {
      expect(saw).toMatch(/swarm: 403 forbidden: .*Only a lead agent may list the swarm.s agents/);
      expect(saw).toContain("swarm swarm agents exit: 1");
      expect(saw).toMatch(/swarm: 403 forbidden: .*Only a lead agent may inject learnings/);
      expect(saw).toContain("swarm learn exit: 1");
    }
    const swarmFeedback = await call(target, "GET", "/api/v1/memories?source=lead_feedback&scope=swarm");
    expect(swarmFeedback.body.memories).toHaveLength(0);
  });

  it("tells the lead which argument the app refused and why, not only that the request is not valid", async () => {
    const lead = await agentWithToken(target, { role: "lead" });
    const worker = await agentWithToken(target);
    const script = [
      "cat >/dev/null",
      'swarm swarm tasks --since last-week 2>&1; echo "tasks exit: $?"',
      `swarm learn --agent ${worker.name} --category preference "$(printf 'w%.0s' $(seq 1 8001))" 2>&1; echo "learn exit: $?"`,
    ].join("\n");
    const taskId = await createTask(target, { title: "look around", agentId: lead.id });
    const output = await runOnce(lead.token, script, taskId);
    expect(output).toContain("tasks exit: 1");
    expect(output).toMatch(/since: .*"24h"/);
    expect(output).toContain("learn exit: 1");
    expect(output).toMatch(/learning: .*8000 characters/);
  });
});

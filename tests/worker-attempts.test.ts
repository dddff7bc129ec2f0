import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURES, spawnWorker } from "../worker/test-support/run-worker";
import { startTestServer, type TestServer } from "./support/test-server";
import { agentWithToken, call, createTask, getTask, seedBareRepository, waitForTask } from "./worker-helpers";

let target: TestServer;
let root: string;
let origin: string;

beforeAll(async () => {
  target = await startTestServer({ env: { SWARMDECK_MAX_ATTEMPTS: "3", SWARMDECK_RETRY_BACKOFF_MS: "1500" } });
  root = mkdtempSync(path.join(tmpdir(), "swarmdeck-attempts-"));
  origin = path.join(root, "origin.git");
  seedBareRepository(origin);
}, 600_000);
afterAll(async () => {
  await target?.stop();
  if (root) rmSync(root, { recursive: true, force: true });
});

const worker = (token: string, name: string, env: Record<string, string> = {}) =>
  spawnWorker(
    {
      SWARMDECK_URL: target.baseUrl,
      SWARMDECK_TOKEN: token,
      WORKSPACE_DIR: path.join(root, name),
      REPO_URL: origin,
      AGENT_COMMAND: path.join(FIXTURES, "agents", "give-back.sh"),
      REFLECTION_COMMAND: path.join(FIXTURES, "agents", "reflect.sh"),
      ...env,
    },
    [],
  );

type Event = { type: string; message: string; actorId: string | null; createdAt: string; data: Record<string, unknown> };

describe("a task its agents keep giving back", { timeout: 120_000 }, () => {
  it("goes to the other agent, uses an attempt each time, and fails after the last with every reason, a failure memory and a reflection", async () => {
    const ada = await agentWithToken(target);
    const bob = await agentWithToken(target);
    const taskId = await createTask(target, { title: "make verify pass" });
    const runs = [worker(ada.token, "ada"), worker(bob.token, "bob")];
    const { task, events } = await waitForTask(target, taskId, (t) => t.status === "failed", 90_000);
    // The worker that gave the last attempt back says so once the app has answered: let it finish its lines.
    const ended = () => runs.some((run) => run.log().includes(`task=${taskId} task failed`));
    for (const deadline = Date.now() + 15_000; !ended() && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 50));
    for (const run of runs) run.child.kill("SIGTERM");
    const logs = runs.map((run) => run.log()).join("\n");
    for (const run of runs) expect(await run.exited, logs).toBe(0);
    // What the workers' consoles say matches: two give-backs, then the app's failure.
    const said = (text: string) => logs.split("\n").filter((line) => line.includes(`task=${taskId} ${text}`)).length;
    expect(said("task released"), logs).toBe(2);
    expect(said("giving the task back on its last attempt"), logs).toBe(1);
    expect(said("that was its last attempt: the app failed the task"), logs).toBe(1);
    expect(said("task failed"), logs).toBe(1);

    // Exactly the limit: three claims, two give-backs, then the failure.
    expect(task).toMatchObject({ attempts: 3, maxAttempts: 3 });
    const kinds = (events as Event[]).map((event) => event.type);
    expect(kinds.filter((k) => k === "claimed")).toHaveLength(3);
    expect(kinds.filter((k) => k === "released")).toHaveLength(2);
    // The agent that gave it back is not the one that gets it next.
    const claimers = (events as Event[]).filter((event) => event.type === "claimed").map((event) => event.actorId);
    for (let i = 1; i < claimers.length; i++) expect(claimers[i], JSON.stringify(claimers)).not.toBe(claimers[i - 1]);

    // The failure explains itself: every attempt and its reason.
    expect(task.failureReason).toMatch(/^Gave up after 3 attempts \(limit 3\):/);
    for (const attempt of [1, 2, 3])
      expect(task.failureReason).toMatch(new RegExp(`- attempt ${attempt}: Given back by \\S+: verify\\.sh keeps failing: 3 type errors`));

    // A failure memory, like any failed task's, and the reflection of the last attempt only.
    const failures = await call(target, "GET", "/api/v1/memories?source=task_failure&limit=50");
    expect(failures.status, JSON.stringify(failures.body)).toBe(200);
    expect(failures.body.memories.some((m: { content: string }) => m.content.includes("verify.sh keeps failing"))).toBe(true);
    const reflections = await call(target, "GET", "/api/v1/memories?source=reflection&limit=50");
    expect(reflections.body.memories).toEqual([expect.objectContaining({ name: "Reflection: make verify pass", source: "reflection" })]);
    expect(reflections.body.memories[0].content).toContain("The task failed");
  });

  it("makes the agent that gave a task back wait out the backoff before it gets it again", async () => {
    const carol = await agentWithToken(target);
    const taskId = await createTask(target, { title: "only carol", agentId: carol.id });
    const run = worker(carol.token, "carol", { GIVE_BACK_REASON: "the staging database is down" });
    const { events } = await waitForTask(target, taskId, (t) => t.attempts >= 2, 60_000);
    run.child.kill("SIGTERM");
    expect(await run.exited, run.log()).toBe(0);
    const released = (events as Event[]).find((event) => event.type === "released")!;
    expect(released.message).toMatch(/the staging database is down \(attempt 1 of 3\); back to its agent/);
    const retryAt = Number(released.data.retryAt);
    const secondClaim = (events as Event[]).filter((event) => event.type === "claimed")[1]!;
    expect(Date.parse(secondClaim.createdAt)).toBeGreaterThanOrEqual(retryAt);
    const { task } = await getTask(target, taskId);
    expect(task.attempts).toBeGreaterThanOrEqual(2);
  });
});

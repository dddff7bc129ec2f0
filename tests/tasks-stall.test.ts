// Stalled work on a server of its own with a short stall timeout: a task whose
// worker went silent goes back (to its agent, or the pool) with an event and its
// attempt counted, and fails once it stalled on its last allowed attempt.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support/test-server";
import { call as callApp, agentWithToken as newAgentWithToken } from "./worker-helpers";

let target: TestServer;

beforeAll(async () => {
  target = await startTestServer({
    env: { SWARMDECK_STALL_TIMEOUT_MS: "1500", SWARMDECK_STALL_SWEEP_MS: "250", SWARMDECK_MAX_ATTEMPTS: "2" },
  });
});

afterAll(async () => {
  await target?.stop();
});

const call = (method: string, path: string, body?: unknown, token?: string) => callApp(target, method, path, body, token);
const agentWithToken = () => newAgentWithToken(target);

async function waitForStatus(taskId: string, status: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const reply = await call("GET", `/api/v1/tasks/${taskId}`);
    if (reply.body.task.status === status) return reply.body;
    if (Date.now() > deadline) throw new Error(`task ${taskId} is ${reply.body.task.status}, not ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("stalled tasks", () => {
  it("go back to their agent after the timeout, counted, and fail after the last allowed attempt", async () => {
    const agent = await agentWithToken();
    const created = await call("POST", "/api/v1/tasks", { title: "the worker will die", agentId: agent.id });
    const taskId = created.body.task.id as string;

    const first = await call("GET", "/api/worker/poll?waitMs=1000", undefined, agent.token);
    expect(first.body.task).toMatchObject({ id: taskId, attempts: 1 });
    // A heartbeat keeps it alive past the timeout...
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect((await call("POST", `/api/worker/tasks/${taskId}/heartbeat`, {}, agent.token)).body.cancelled).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect((await call("GET", `/api/v1/tasks/${taskId}`)).body.task.status).toBe("in_progress");
    // ...then the worker goes silent.
    const back = await waitForStatus(taskId, "pending");
    expect(back.task).toMatchObject({ agentId: agent.id, attempts: 1, claimedAt: null });
    const stalled = back.events.filter((event: { type: string }) => event.type === "stalled");
    expect(stalled).toHaveLength(1);
    expect(stalled[0]).toMatchObject({ fromStatus: "in_progress", toStatus: "pending", actorType: "system" });
    expect(stalled[0].message).toMatch(/No heartbeat for .*attempt 1/);
    // The dead worker's late heartbeat hears it must stop.
    expect((await call("POST", `/api/worker/tasks/${taskId}/heartbeat`, {}, agent.token)).body).toEqual({
      cancelled: true,
      status: "pending",
    });

    const second = await call("GET", "/api/worker/poll?waitMs=1000", undefined, agent.token);
    expect(second.body.task).toMatchObject({ id: taskId, attempts: 2 });
    const failed = await waitForStatus(taskId, "failed");
    // Every attempt's reason, so the failure explains itself.
    expect(failed.task.failureReason).toMatch(
      /^Gave up after 2 attempts \(limit 2\):\n- attempt 1: No heartbeat for .*: stalled\n- attempt 2: No heartbeat for .*: stalled/,
    );
    expect(failed.task.finishedAt).not.toBeNull();
    const agentNow = await call("GET", `/api/v1/agents/${agent.id}`);
    expect(agentNow.body.agent.status).toBe("idle");
  });

  it("puts a stalled pool task back in the pool, where another agent takes it", async () => {
    const first = await agentWithToken();
    const second = await agentWithToken();
    const created = await call("POST", "/api/v1/tasks", { title: "from the pool" });
    const taskId = created.body.task.id as string;
    expect((await call("GET", "/api/worker/poll", undefined, first.token)).body.task.id).toBe(taskId);
    // The second agent waits; the stall wakes it with the task.
    const waiting = call("GET", "/api/worker/poll?waitMs=15000", undefined, second.token);
    const reply = await waiting;
    expect(reply.status).toBe(200);
    expect(reply.body.task).toMatchObject({ id: taskId, agentId: second.id, attempts: 2 });
    const detail = await call("GET", `/api/v1/tasks/${taskId}`);
    expect(detail.body.events.map((event: { type: string }) => event.type)).toEqual(["created", "claimed", "stalled", "claimed"]);
    expect(detail.body.events[2].toStatus).toBe("unassigned");
  });

  it("a finish arriving as the sweep takes the task back: one of them applies, never both", async () => {
    const agent = await newAgentWithToken(target, { maxConcurrentTasks: 8 });
    const ids: string[] = [];
    for (let i = 0; i < 8; i += 1) {
      ids.push((await call("POST", "/api/v1/tasks", { title: `late finish ${i}`, agentId: agent.id })).body.task.id as string);
    }
    for (let i = 0; i < ids.length; i += 1)
      expect((await call("GET", "/api/worker/poll?waitMs=0", undefined, agent.token)).status).toBe(200);
    // Silent until about the stall timeout, then every task is finished while the sweep (every 250 ms) may be taking it back.
    await new Promise((resolve) => setTimeout(resolve, 1_400));
    const finishes = await Promise.all(
      ids.map(async (id, index) => {
        await new Promise((resolve) => setTimeout(resolve, index * 60));
        return (await call("POST", `/api/worker/tasks/${id}/complete`, { output: "made it" }, agent.token)).status;
      }),
    );
    for (const [index, id] of ids.entries()) {
      const detail = await waitForStatus(id, finishes[index] === 200 ? "completed" : "pending");
      const types = detail.events.map((event: { type: string }) => event.type);
      if (finishes[index] === 200) {
        expect(types).toEqual(["created", "claimed", "status"]);
        expect(detail.task.output).toBe("made it");
      } else {
        expect(finishes[index]).toBe(409);
        expect(types).toEqual(["created", "claimed", "stalled"]);
        expect(detail.task.output).toBeNull();
      }
    }
    for (const id of ids) await call("PATCH", `/api/v1/tasks/${id}`, { action: "cancel" });
  });
});

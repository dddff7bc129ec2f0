// The worker protocol's task calls against the real server: claiming, the bundle,
// heartbeats, finishing, giving back, and every refusal leaving the task as it was.
import { beforeEach, describe, expect, it } from "vitest";
import { admin, client } from "./support/client";
import { agentWithWorker, auditActions, createTask, database, drainPool, operatorToken, taskCount, taskRow } from "./tasks-helpers";

beforeEach(async () => {
  await drainPool();
});

describe("poll", () => {
  it("answers 204 when there is nothing to do", async () => {
    const { worker } = await agentWithWorker();
    const reply = await worker.get("/api/worker/poll?waitMs=0");
    expect(reply.status).toBe(204);
  });

  it("claims the agent's own pending task before the pool, then the pool by priority and age", async () => {
    const { agent, worker } = await agentWithWorker({ maxConcurrentTasks: 10 });
    const poolLow = await createTask({ title: "pool low", priority: 1 });
    const poolHighOld = await createTask({ title: "pool high old", priority: 5 });
    const poolHighNew = await createTask({ title: "pool high new", priority: 5 });
    const own = await createTask({ title: "own", agentId: agent.id, priority: -10 });
    const order: string[] = [];
    for (let i = 0; i < 4; i += 1) {
      const reply = await worker.get("/api/worker/poll?waitMs=0");
      expect(reply.status).toBe(200);
      order.push(reply.body.task.id);
    }
    expect(order).toEqual([own.id, poolHighOld.id, poolHighNew.id, poolLow.id]);
    expect((await worker.get("/api/worker/poll?waitMs=0")).status).toBe(204);
  });

  it("records the claim: in progress, attempt 1, heartbeat, SOUL version, an event, a session and an audit entry", async () => {
    const { agent, worker } = await agentWithWorker();
    const task = await createTask({ title: "record me", agentId: agent.id });
    const reply = await worker.get("/api/worker/poll");
    expect(reply.status).toBe(200);
    expect(reply.body.task).toMatchObject({ id: task.id, status: "in_progress", attempts: 1, agentId: agent.id, agentName: agent.name });
    expect(reply.body.task.claimedAt).not.toBeNull();
    expect(reply.body.task.heartbeatAt).not.toBeNull();
    // What the worker is told is the task as stored: the operator's view of it, read afresh, is the same.
    expect(reply.body.task).toEqual((await admin().get(`/api/v1/tasks/${task.id}`)).body.task);

    const soul = await database().get<{ currentVersionId: string | null }>(
      `SELECT "currentVersionId" FROM "IdentityFile" WHERE "agentId" = ? AND "kind" = 'SOUL'`,
      [agent.id],
    );
    expect((await taskRow(task.id)).soulVersionId).toBe(soul?.currentVersionId ?? null);
    const sessions = await database().all<Record<string, unknown>>(`SELECT "agentId", "endedAt" FROM "Session" WHERE "taskId" = ?`, [
      task.id,
    ]);
    expect(sessions).toEqual([{ agentId: agent.id, endedAt: null }]);
    const detail = await admin().get(`/api/v1/tasks/${task.id}`);
    expect(detail.body.events.map((event: { type: string }) => event.type)).toEqual(["created", "claimed"]);
    expect(await auditActions(task.id)).toEqual(["task.created", "task.claimed"]);
    const seen = await admin().get(`/api/v1/agents/${agent.id}`);
    expect(seen.body.agent.lastSeenAt).not.toBeNull();
  });

  it("respects the agent's concurrency limit", async () => {
    const { worker } = await agentWithWorker({ maxConcurrentTasks: 1 });
    await createTask({ title: "first" });
    await createTask({ title: "second" });
    expect((await worker.get("/api/worker/poll?waitMs=0")).status).toBe(200);
    expect((await worker.get("/api/worker/poll?waitMs=300")).status).toBe(204);
  });

  it("wakes a waiting poll the moment a task is created, without waiting out its timeout", async () => {
    const { agent, worker } = await agentWithWorker();
    const started = Date.now();
    const polling = worker.get("/api/worker/poll?waitMs=30000");
    await new Promise((resolve) => setTimeout(resolve, 300));
    const task = await createTask({ title: "wake up", agentId: agent.id });
    const reply = await polling;
    expect(reply.status).toBe(200);
    expect(reply.body.task.id).toBe(task.id);
    // The safety re-check runs every 5 s: an answer well before it proves the wake-up.
    expect(Date.now() - started).toBeLessThan(4_000);
  });

  it("names the agent as it is called when the task arrives, after a rename during the wait", async () => {
    const { agent, worker } = await agentWithWorker();
    const polling = worker.get("/api/worker/poll?waitMs=30000");
    await new Promise((resolve) => setTimeout(resolve, 300));
    const renamed = `${agent.name}-renamed`;
    const patched = await admin().patch(`/api/v1/agents/${agent.id}`, { name: renamed });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const task = await createTask({ title: "after the rename", agentId: agent.id });
    const reply = await polling;
    expect(reply.status).toBe(200);
    expect(reply.body.task).toMatchObject({ id: task.id, agentId: agent.id, agentName: renamed });
  });

  it("wakes a pool poll when an operator returns a task to the pool", async () => {
    const { agent } = await agentWithWorker();
    const other = await agentWithWorker();
    const task = await createTask({ title: "for someone else first", agentId: agent.id });
    const polling = other.worker.get("/api/worker/poll?waitMs=30000");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await admin().patch(`/api/v1/tasks/${task.id}`, { action: "unassign" })).status).toBe(200);
    const reply = await polling;
    expect(reply.status).toBe(200);
    expect(reply.body.task).toMatchObject({ id: task.id, agentId: other.agent.id });
  });

  it("refuses waits over 30 s, operator tokens and missing tokens", async () => {
    const { worker } = await agentWithWorker();
    const tooLong = await worker.get("/api/worker/poll?waitMs=30001");
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error.code).toBe("validation_failed");
    expect((await admin().get("/api/worker/poll")).status).toBe(403);
    expect((await client().get("/api/worker/poll")).status).toBe(401);
    expect((await client("sdw_not-a-token").get("/api/worker/poll")).status).toBe(401);
  });

  it("answers HEAD with 405 and claims nothing, so a `curl -I` or a monitor cannot take a task no worker will see", async () => {
    const { agent, worker } = await agentWithWorker();
    const task = await createTask({ title: "not for a HEAD", agentId: agent.id });
    for (const path of ["/api/worker/poll", "/api/worker/poll?waitMs=0", `/api/worker/tasks/${task.id}/bundle`]) {
      const head = await worker.request("HEAD", path);
      expect(head.status, path).toBe(405);
      expect(head.headers.get("allow"), path).toBe("GET");
    }
    expect(await taskRow(task.id)).toMatchObject({ status: "pending", attempts: 0, claimedAt: null });
    const poll = await worker.get("/api/worker/poll?waitMs=0");
    expect(poll.status).toBe(200);
    expect(poll.body.task).toMatchObject({ id: task.id, attempts: 1 });
  });
});

async function claimed(body: Record<string, unknown> = {}) {
  const setup = await agentWithWorker();
  const task = await createTask({ title: "claimed task", agentId: setup.agent.id, ...body });
  const reply = await setup.worker.get("/api/worker/poll");
  expect(reply.body.task.id).toBe(task.id);
  return { ...setup, task };
}

describe("only the claiming agent touches its task", () => {
  it("answers 403 to another agent on every call and 404 for unknown ids, changing nothing", async () => {
    const { task } = await claimed();
    const intruder = await agentWithWorker();
    const before = await taskRow(task.id);
    for (const [method, path, body] of [
      ["GET", "bundle", undefined],
      ["POST", "heartbeat", { progress: "mine now" }],
      ["POST", "complete", { output: "stolen" }],
      ["POST", "fail", { failureReason: "sabotage" }],
      ["POST", "release", { reason: "go away" }],
    ] as const) {
      const reply = await intruder.worker.request(method, `/api/worker/tasks/${task.id}/${path}`, body);
      expect(reply.status, path).toBe(403);
      expect(reply.body.error.code).toBe("forbidden");
      const missing = await intruder.worker.request(method, `/api/worker/tasks/no-such-task/${path}`, body);
      expect(missing.status, path).toBe(404);
    }
    expect(await taskRow(task.id)).toEqual(before);
  });
});

describe("heartbeat", () => {
  it("keeps the task alive, turns a progress note into an event and answers not cancelled", async () => {
    const { task, worker } = await claimed();
    const reply = await worker.post(`/api/worker/tasks/${task.id}/heartbeat`, { progress: "halfway there" });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ cancelled: false, status: "in_progress" });
    const silent = await worker.post(`/api/worker/tasks/${task.id}/heartbeat`, {});
    expect(silent.body).toEqual({ cancelled: false, status: "in_progress" });
    // docs/architecture.md: heartbeat {progress?}: a heartbeat with no body at all is one too.
    const bare = await worker.post(`/api/worker/tasks/${task.id}/heartbeat`);
    expect(bare.status).toBe(200);
    expect(bare.body).toEqual({ cancelled: false, status: "in_progress" });
    const detail = await admin().get(`/api/v1/tasks/${task.id}`);
    expect(detail.body.task.progress).toBe("halfway there");
    const progress = detail.body.events.filter((event: { type: string }) => event.type === "progress");
    expect(progress.map((event: { message: string }) => event.message)).toEqual(["halfway there"]);
  });

  it("tells the worker to stop once an operator cancelled the task", async () => {
    const { task, worker } = await claimed();
    expect((await admin().patch(`/api/v1/tasks/${task.id}`, { action: "cancel", reason: "changed my mind" })).status).toBe(200);
    const reply = await worker.post(`/api/worker/tasks/${task.id}/heartbeat`, { progress: "still going" });
    expect(reply.body).toEqual({ cancelled: true, status: "cancelled" });
    const complete = await worker.post(`/api/worker/tasks/${task.id}/complete`, { output: "too late" });
    expect(complete.status).toBe(409);
    expect(complete.body.error.code).toBe("already_finished");
    expect((await taskRow(task.id)).output).toBeNull();
  });

  it("refuses a progress note that is not a string (400) and writes nothing", async () => {
    const { task, worker } = await claimed();
    const reply = await worker.post(`/api/worker/tasks/${task.id}/heartbeat`, { progress: 42 });
    expect(reply.status).toBe(400);
    expect((await taskRow(task.id)).progress).toBeNull();
  });
});

describe("complete and fail", () => {
  it("completes with the output and summary, ends the session, and a second finish is 409 with nothing changed", async () => {
    const { task, worker, agent } = await claimed();
    const reply = await worker.post(`/api/worker/tasks/${task.id}/complete`, { output: "# Done\n\nAll good.", summary: "did it" });
    expect(reply.status).toBe(200);
    expect(reply.body.task).toMatchObject({ id: task.id, status: "completed", output: "# Done\n\nAll good.", summary: "did it" });
    expect(reply.body.task.finishedAt).not.toBeNull();
    // What the worker is told is the task as stored: the operator's view of it, read afresh, is the same.
    const stored = await admin().get(`/api/v1/tasks/${task.id}`);
    expect(reply.body.task).toEqual(stored.body.task);
    const session = (await database().get<Record<string, unknown>>(`SELECT "endedAt", "summary" FROM "Session" WHERE "taskId" = ?`, [
      task.id,
    ])) as Record<string, unknown>;
    expect(session.endedAt).not.toBeNull();
    expect(session.summary).toBe("did it");

    const before = await taskRow(task.id);
    const again = await worker.post(`/api/worker/tasks/${task.id}/complete`, { output: "again" });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("already_finished");
    const fail = await worker.post(`/api/worker/tasks/${task.id}/fail`, { failureReason: "changed" });
    expect(fail.status).toBe(409);
    expect(await taskRow(task.id)).toEqual(before);
    expect(await auditActions(task.id)).toEqual(["task.created", "task.claimed", "task.completed"]);
    const agentNow = await admin().get(`/api/v1/agents/${agent.id}`);
    expect(agentNow.body.agent.status).toBe("idle");
  });

  it("fails with the reason and the output", async () => {
    const { task, worker } = await claimed();
    const reply = await worker.post(`/api/worker/tasks/${task.id}/fail`, { failureReason: "tests are red", output: "npm test: 3 failed" });
    expect(reply.status).toBe(200);
    expect(reply.body.task).toMatchObject({ status: "failed", failureReason: "tests are red", output: "npm test: 3 failed" });
    const detail = await admin().get(`/api/v1/tasks/${task.id}`);
    expect(detail.body.events.at(-1)).toMatchObject({ type: "status", fromStatus: "in_progress", toStatus: "failed" });
  });

  it("refuses bad bodies (400, 400 malformed JSON) and leaves the task in progress", async () => {
    const { task, worker } = await claimed();
    const noOutput = await worker.post(`/api/worker/tasks/${task.id}/complete`, { summary: "no output" });
    expect(noOutput.status).toBe(400);
    expect(noOutput.body.error.details[0].path).toBe("output");
    const emptyReason = await worker.post(`/api/worker/tasks/${task.id}/fail`, { failureReason: "   " });
    expect(emptyReason.status).toBe(400);
    const bodiless = await worker.post(`/api/worker/tasks/${task.id}/complete`);
    expect(bodiless.status).toBe(400);
    expect(bodiless.body.error).toMatchObject({ code: "validation_failed", details: [expect.objectContaining({ path: "output" })] });
    const malformed = await worker.post(`/api/worker/tasks/${task.id}/complete`, undefined, { raw: "{not json" });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe("invalid_json");
    expect((await taskRow(task.id)).status).toBe("in_progress");
  });
});

describe("release", () => {
  it("gives a task created for the agent back to it as pending, the attempt counted, after a backoff", async () => {
    const { task, worker, agent } = await claimed();
    const reply = await worker.post(`/api/worker/tasks/${task.id}/release`, { reason: "worker shutting down" });
    expect(reply.status).toBe(200);
    expect(reply.body.task).toMatchObject({ status: "pending", agentId: agent.id, attempts: 1, maxAttempts: 3, claimedAt: null });
    expect(Date.parse(reply.body.task.retryAt)).toBeGreaterThan(Date.now());
    const detail = await admin().get(`/api/v1/tasks/${task.id}`);
    expect(detail.body.events.at(-1)).toMatchObject({ type: "released", fromStatus: "in_progress", toStatus: "pending" });
    expect(detail.body.events.at(-1).message).toContain("worker shutting down (attempt 1 of 3)");
    // The same agent does not get it back at once: it waits out the backoff.
    const again = await worker.get("/api/worker/poll?waitMs=0");
    expect(again.status).toBe(204);
    expect((await taskRow(task.id)).status).toBe("pending");
  });

  it("gives a pool task back to the pool, where another agent can take it", async () => {
    const first = await agentWithWorker();
    const task = await createTask({ title: "from the pool" });
    expect((await first.worker.get("/api/worker/poll?waitMs=0")).body.task.id).toBe(task.id);
    const released = await first.worker.post(`/api/worker/tasks/${task.id}/release`, { reason: "SIGTERM" });
    expect(released.body.task).toMatchObject({ status: "unassigned", agentId: null });
    const second = await agentWithWorker();
    const reply = await second.worker.get("/api/worker/poll?waitMs=0");
    expect(reply.body.task).toMatchObject({ id: task.id, agentId: second.agent.id });
    expect((await first.worker.post(`/api/worker/tasks/${task.id}/complete`, { output: "late" })).status).toBe(403);
  });

  it("refuses a release without a reason and a release of a task not in progress", async () => {
    const { task, worker } = await claimed();
    expect((await worker.post(`/api/worker/tasks/${task.id}/release`, {})).status).toBe(400);
    expect((await taskRow(task.id)).status).toBe("in_progress");
    await worker.post(`/api/worker/tasks/${task.id}/release`, { reason: "stopping" });
    const twice = await worker.post(`/api/worker/tasks/${task.id}/release`, { reason: "stopping again" });
    expect(twice.status).toBe(409);
    expect(twice.body.error.code).toBe("conflict");
  });
});

describe("bundle", () => {
  it("serves the task, files, composed setup script, prompts and memories; the task prompt carries the parent's outcome", async () => {
    const { agent, worker, token } = await agentWithWorker();
    const parent = await createTask({ title: "Parent work", agentId: agent.id });
    expect((await worker.get("/api/worker/poll")).body.task.id).toBe(parent.id);
    await worker.post(`/api/worker/tasks/${parent.id}/complete`, { output: "The parent found the bug in parser.ts" });
    const child = await createTask({
      title: "Fix the parser",
      description: "Follow the parent's lead.",
      agentId: agent.id,
      parentTaskId: parent.id,
    });
    expect((await client(token).get("/api/worker/poll")).body.task.id).toBe(child.id);

    const reply = await worker.get(`/api/worker/tasks/${child.id}/bundle`);
    expect(reply.status).toBe(200);
    const bundle = reply.body;
    expect(bundle.task.id).toBe(child.id);
    expect(Array.isArray(bundle.files)).toBe(true);
    expect(Array.isArray(bundle.memories)).toBe(true);
    expect(typeof bundle.systemPrompt).toBe("string");
    expect(bundle.setupScript.composed).toContain("# === Agent-managed setup (from DB) ===");
    expect(bundle.setupScript.composed).toContain("# === End agent-managed setup ===");
    expect(bundle.taskPrompt).toContain("# Task: Fix the parser");
    expect(bundle.taskPrompt).toContain("Follow the parent's lead.");
    expect(bundle.taskPrompt).toContain("Parent task: Parent work");
    expect(bundle.taskPrompt).toContain("The parent found the bug in parser.ts");
  });

  it("is refused for a task that is no longer in progress (409)", async () => {
    const { task, worker } = await claimed();
    await worker.post(`/api/worker/tasks/${task.id}/complete`, { output: "done" });
    const reply = await worker.get(`/api/worker/tasks/${task.id}/bundle`);
    expect(reply.status).toBe(409);
  });
});

describe("a worker files a task", () => {
  it("creates an offered task no worker claims until an operator accepts it into the pool", async () => {
    const { agent, worker } = await agentWithWorker();
    const reply = await worker.post("/api/worker/tasks", {
      title: "Add a cache to the parser",
      description: "It is slow.",
      tags: ["proposal"],
    });
    expect(reply.status).toBe(201);
    expect(reply.body.task).toMatchObject({ status: "offered", agentId: null, tags: ["proposal"] });
    const id = reply.body.task.id;
    expect((await worker.get("/api/worker/poll?waitMs=0")).status).toBe(204);
    const detail = await admin().get(`/api/v1/tasks/${id}`);
    expect(detail.body.events[0]).toMatchObject({ type: "created", actorType: "worker", actorId: agent.id });
    expect((await admin().patch(`/api/v1/tasks/${id}`, { action: "unassign" })).body.task.status).toBe("unassigned");
    expect((await worker.get("/api/worker/poll?waitMs=0")).body.task.id).toBe(id);
  });

  it("refuses a bad tag (400) and an operator token (403), creating nothing", async () => {
    const { worker } = await agentWithWorker();
    const before = await taskCount();
    expect((await worker.post("/api/worker/tasks", { title: "x", tags: ["Not A Tag"] })).status).toBe(400);
    expect((await client(await operatorToken("operator")).post("/api/worker/tasks", { title: "x" })).status).toBe(403);
    expect(await taskCount()).toBe(before);
  });
});

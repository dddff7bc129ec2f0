// The operator task API against the real server: create, list with filters and
// paging, read with events, the PATCH actions with their refusals, roles, audit.
import { describe, expect, it } from "vitest";
import { admin, client, createAgent } from "./support/client";
import { agentWithWorker, auditActions, createTask, operatorToken, taskCount, taskRow } from "./tasks-helpers";

describe("create", () => {
  it("puts a task without an agent in the pool, unassigned, with an event and an audit entry", async () => {
    const reply = await admin().post("/api/v1/tasks", {
      title: "  Write the README  ",
      description: "The first screen matters.",
      type: "docs",
      tags: ["docs", "readme", "docs"],
      priority: 7,
    });
    expect(reply.status).toBe(201);
    expect(reply.body.task).toMatchObject({
      title: "Write the README",
      status: "unassigned",
      agentId: null,
      type: "docs",
      tags: ["docs", "readme"],
      priority: 7,
      attempts: 0,
    });
    const detail = await admin().get(`/api/v1/tasks/${reply.body.task.id}`);
    expect(detail.body.events).toHaveLength(1);
    expect(detail.body.events[0]).toMatchObject({ type: "created", toStatus: "unassigned", actorType: "api_token" });
    expect(await auditActions(reply.body.task.id)).toEqual(["task.created"]);
  });

  it("makes a task for an agent pending for it", async () => {
    const agent = await createAgent();
    const task = await createTask({ title: "for you", agentId: agent.id });
    expect(task).toMatchObject({ status: "pending", agentId: agent.id, agentName: agent.name });
  });

  it("takes an empty parent as no parent, as an empty agent is the pool (found by the fuzz suite: it was a 500)", async () => {
    const reply = await admin().post("/api/v1/tasks", { title: "no parent", parentTaskId: "", agentId: "" });
    expect(reply.status).toBe(201);
    expect(reply.body.task).toMatchObject({ parentTaskId: null, agentId: null, status: "unassigned" });
    // Out of the pool again, so no other test's worker claims it.
    expect((await admin().patch(`/api/v1/tasks/${reply.body.task.id}`, { action: "cancel" })).status).toBe(200);
  });

  it("refuses an unknown agent or parent (404) and invalid input (400 with details), creating nothing", async () => {
    const before = await taskCount();
    const unknownAgent = await admin().post("/api/v1/tasks", { title: "x", agentId: "no-such-agent" });
    expect(unknownAgent.status).toBe(404);
    expect(unknownAgent.body.error.code).toBe("not_found");
    const unknownParent = await admin().post("/api/v1/tasks", { title: "x", parentTaskId: "no-such-task" });
    expect(unknownParent.status).toBe(404);
    const noTitle = await admin().post("/api/v1/tasks", { title: "   " });
    expect(noTitle.status).toBe(400);
    expect(noTitle.body.error.details[0]).toMatchObject({ path: "title" });
    const badPriority = await admin().post("/api/v1/tasks", { title: "x", priority: 1000 });
    expect(badPriority.status).toBe(400);
    // The messages are for the operator who typed the value (the form shows them under its fields).
    expect(badPriority.body.error.details).toEqual([{ path: "priority", message: "at most 100 (-100 … 100, higher first)" }]);
    const halfPriority = await admin().post("/api/v1/tasks", { title: "x", priority: 1.5 });
    expect(halfPriority.body.error.details).toEqual([{ path: "priority", message: "a whole number from -100 to 100" }]);
    const badType = await admin().post("/api/v1/tasks", { title: "x", type: "Bug Fix" });
    expect(badType.status).toBe(400);
    expect(badType.body.error.details).toEqual([
      { path: "type", message: "lower-case letters, digits, '_' and '-' (no spaces), starting with a letter, e.g. bugfix" },
    ]);
    const extra = await admin().post("/api/v1/tasks", { title: "x", status: "completed" });
    expect(extra.status).toBe(400);
    const malformed = await admin().post("/api/v1/tasks", undefined, { raw: '{"title":' });
    expect(malformed.body.error.code).toBe("invalid_json");
    expect(await taskCount()).toBe(before);
  });
});

describe("list", () => {
  it("filters by status (a comma list), agent, tag and text, newest first", async () => {
    const agent = await createAgent();
    const marker = `m${Date.now().toString(36)}`;
    const a = await createTask({ title: `${marker} alpha`, agentId: agent.id, tags: ["alpha"] });
    const b = await createTask({ title: `${marker} beta`, tags: ["beta"] });
    const c = await createTask({ title: `${marker} gamma`, tags: ["beta"] });
    await admin().patch(`/api/v1/tasks/${c.id}`, { action: "cancel" });

    const byText = await admin().get(`/api/v1/tasks?q=${marker}`);
    expect(byText.body.tasks.map((task: { id: string }) => task.id)).toEqual([c.id, b.id, a.id]);
    const byStatus = await admin().get(`/api/v1/tasks?q=${marker}&status=pending,cancelled`);
    expect(byStatus.body.tasks.map((task: { id: string }) => task.id)).toEqual([c.id, a.id]);
    const byAgent = await admin().get(`/api/v1/tasks?agentId=${agent.id}`);
    expect(byAgent.body.tasks.map((task: { id: string }) => task.id)).toEqual([a.id]);
    const byTag = await admin().get(`/api/v1/tasks?q=${marker}&tag=beta`);
    expect(byTag.body.tasks.map((task: { id: string }) => task.id)).toEqual([c.id, b.id]);
    // A tag filter is normalised as tags are stored: trimmed and lower-case.
    const byUpperTag = await admin().get(`/api/v1/tasks?q=${marker}&tag=${encodeURIComponent(" BETA ")}`);
    expect(byUpperTag.status).toBe(200);
    expect(byUpperTag.body.tasks.map((task: { id: string }) => task.id)).toEqual([c.id, b.id]);
    const notATag = await admin().get(`/api/v1/tasks?tag=${encodeURIComponent("two words")}`);
    expect(notATag.status).toBe(400);
    expect(notATag.body.error.details).toEqual([
      { path: "tag", message: "lower-case letters, digits, '.', '_' and '-' (no spaces), starting with a letter or digit" },
    ]);
    const percent = await admin().get(`/api/v1/tasks?q=${encodeURIComponent("%")}`);
    expect(percent.status).toBe(200);
    expect(percent.body.tasks).toEqual([]);
  });

  it("pages with a cursor without repeating or skipping a task", async () => {
    const marker = `page${Date.now().toString(36)}`;
    const made: string[] = [];
    for (let i = 0; i < 5; i += 1) made.push((await createTask({ title: `${marker} ${i}` })).id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const reply: { body: { tasks: Array<{ id: string }>; nextCursor: string | null } } = await admin().get(
        `/api/v1/tasks?q=${marker}&limit=2${cursor ? `&cursor=${cursor}` : ""}`,
      );
      seen.push(...reply.body.tasks.map((task) => task.id));
      cursor = reply.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...made].reverse());
  });

  it("refuses an unknown status (400)", async () => {
    const reply = await admin().get("/api/v1/tasks?status=pending,bogus");
    expect(reply.status).toBe(400);
  });
});

describe("read", () => {
  it("answers 404 for an unknown task", async () => {
    const reply = await admin().get("/api/v1/tasks/no-such-task");
    expect(reply.status).toBe(404);
    expect(reply.body.error.code).toBe("not_found");
  });
});

describe("operator actions", () => {
  it("cancels a waiting task, and a second cancel is 409 already_finished with nothing changed", async () => {
    const task = await createTask({ title: "cancel me" });
    const reply = await admin().patch(`/api/v1/tasks/${task.id}`, { action: "cancel", reason: "not needed" });
    expect(reply.status).toBe(200);
    expect(reply.body.task.status).toBe("cancelled");
    const before = await taskRow(task.id);
    const again = await admin().patch(`/api/v1/tasks/${task.id}`, { action: "cancel" });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("already_finished");
    expect(await taskRow(task.id)).toEqual(before);
    expect(await auditActions(task.id)).toEqual(["task.created", "task.cancelled"]);
  });

  it("reassigns to another agent, returns to the pool, and refuses an unknown agent (404)", async () => {
    const first = await createAgent();
    const second = await createAgent();
    const task = await createTask({ title: "move me", agentId: first.id });
    const moved = await admin().patch(`/api/v1/tasks/${task.id}`, { action: "reassign", agentId: second.id });
    expect(moved.body.task).toMatchObject({ status: "pending", agentId: second.id });
    const same = await admin().patch(`/api/v1/tasks/${task.id}`, { action: "reassign", agentId: second.id });
    expect(same.status).toBe(409);
    const unknown = await admin().patch(`/api/v1/tasks/${task.id}`, { action: "reassign", agentId: "nobody" });
    expect(unknown.status).toBe(404);
    const pooled = await admin().patch(`/api/v1/tasks/${task.id}`, { action: "unassign" });
    expect(pooled.body.task).toMatchObject({ status: "unassigned", agentId: null });
    const twice = await admin().patch(`/api/v1/tasks/${task.id}`, { action: "unassign" });
    expect(twice.status).toBe(409);
    expect(await auditActions(task.id)).toEqual(["task.created", "task.reassigned", "task.unassigned"]);
  });

  it("refuses to move a running task (409) but cancels it, and the worker then hears cancelled", async () => {
    const { agent, worker } = await agentWithWorker();
    const other = await createAgent();
    const task = await createTask({ title: "running", agentId: agent.id });
    expect((await worker.get("/api/worker/poll")).body.task.id).toBe(task.id);
    expect((await admin().patch(`/api/v1/tasks/${task.id}`, { action: "reassign", agentId: other.id })).status).toBe(409);
    expect((await admin().patch(`/api/v1/tasks/${task.id}`, { action: "unassign" })).status).toBe(409);
    expect((await taskRow(task.id)).status).toBe("in_progress");
    const cancelled = await admin().patch(`/api/v1/tasks/${task.id}`, { action: "cancel" });
    expect(cancelled.body.task.status).toBe("cancelled");
    expect((await worker.post(`/api/worker/tasks/${task.id}/heartbeat`, {})).body.cancelled).toBe(true);
  });

  it("retries only a failed or cancelled task: back to its agent, attempts and outcome reset", async () => {
    const { agent, worker } = await agentWithWorker();
    const task = await createTask({ title: "flaky", agentId: agent.id });
    const notYet = await admin().patch(`/api/v1/tasks/${task.id}`, { action: "retry" });
    expect(notYet.status).toBe(409);
    expect((await taskRow(task.id)).status).toBe("pending");
    await worker.get("/api/worker/poll");
    const running = await admin().patch(`/api/v1/tasks/${task.id}`, { action: "retry" });
    expect(running.status).toBe(409);
    await worker.post(`/api/worker/tasks/${task.id}/fail`, { failureReason: "network down" });
    const retried = await admin().patch(`/api/v1/tasks/${task.id}`, { action: "retry" });
    expect(retried.status).toBe(200);
    expect(retried.body.task).toMatchObject({ status: "pending", agentId: agent.id, attempts: 0, failureReason: null, finishedAt: null });
    const other = await agentWithWorker();
    const completedTask = await createTask({ title: "done", agentId: other.agent.id });
    expect((await other.worker.get("/api/worker/poll")).body.task.id).toBe(completedTask.id);
    await other.worker.post(`/api/worker/tasks/${completedTask.id}/complete`, { output: "ok" });
    const noRetry = await admin().patch(`/api/v1/tasks/${completedTask.id}`, { action: "retry" });
    expect(noRetry.status).toBe(409);
    expect((await taskRow(completedTask.id)).status).toBe("completed");
  });

  it("keeps each run's output and failure reason when a task is retried", async () => {
    const { agent, worker } = await agentWithWorker();
    const task = await createTask({ title: "flaky twice", agentId: agent.id });
    const runOnce = async (output: string, reason: string) => {
      expect((await worker.get("/api/worker/poll")).body.task.id).toBe(task.id);
      expect((await worker.post(`/api/worker/tasks/${task.id}/fail`, { failureReason: reason, output })).status).toBe(200);
      expect((await admin().patch(`/api/v1/tasks/${task.id}`, { action: "retry" })).status).toBe(200);
    };
    await runOnce("## Tried\nbumped the timeout", "npm test: 3 failing");
    await runOnce("## Tried\npinned node 20", "npm test: 1 failing");
    expect((await worker.get("/api/worker/poll")).body.task.id).toBe(task.id);
    await worker.post(`/api/worker/tasks/${task.id}/complete`, { output: "fixed the race in the login test" });

    const detail = await admin().get(`/api/v1/tasks/${task.id}`);
    expect(detail.body.task).toMatchObject({ status: "completed", output: "fixed the race in the login test", failureReason: null });
    const runs = detail.body.events.filter((event: { type: string }) => event.type === "attempt");
    expect(runs.map((event: { data: unknown }) => event.data)).toEqual([
      expect.objectContaining({
        status: "failed",
        agentName: agent.name,
        output: "## Tried\nbumped the timeout",
        failureReason: "npm test: 3 failing",
      }),
      expect.objectContaining({
        status: "failed",
        agentName: agent.name,
        output: "## Tried\npinned node 20",
        failureReason: "npm test: 1 failing",
      }),
    ]);
    expect(runs[0].message).toContain("ended failed");
  });

  it("refuses an unknown action (400) and an unknown task (404)", async () => {
    const task = await createTask({ title: "x" });
    expect((await admin().patch(`/api/v1/tasks/${task.id}`, { action: "explode" })).status).toBe(400);
    expect((await admin().patch("/api/v1/tasks/nope", { action: "cancel" })).status).toBe(404);
    expect((await taskRow(task.id)).status).toBe("unassigned");
  });
});

describe("roles", () => {
  it("lets a viewer read but not create or change tasks (403)", async () => {
    const viewer = client(await operatorToken("viewer"));
    const task = await createTask({ title: "look, don't touch" });
    expect((await viewer.get("/api/v1/tasks")).status).toBe(200);
    expect((await viewer.get(`/api/v1/tasks/${task.id}`)).status).toBe(200);
    const before = await taskCount();
    const create = await viewer.post("/api/v1/tasks", { title: "nope" });
    expect(create.status).toBe(403);
    expect(create.body.error.code).toBe("forbidden");
    expect((await viewer.patch(`/api/v1/tasks/${task.id}`, { action: "cancel" })).status).toBe(403);
    expect(await taskCount()).toBe(before);
    expect((await taskRow(task.id)).status).toBe("unassigned");
  });

  it("lets an operator create and cancel; refuses anonymous callers and worker tokens", async () => {
    const operator = client(await operatorToken("operator"));
    const created = await operator.post("/api/v1/tasks", { title: "by an operator" });
    expect(created.status).toBe(201);
    expect((await operator.patch(`/api/v1/tasks/${created.body.task.id}`, { action: "cancel" })).status).toBe(200);
    expect((await client().get("/api/v1/tasks")).status).toBe(401);
    const { token } = await agentWithWorker();
    expect((await client(token).get("/api/v1/tasks")).status).toBe(403);
  });
});

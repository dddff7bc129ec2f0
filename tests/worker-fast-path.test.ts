// The production server answers the worker protocol's hot routes (poll, heartbeat,
// complete, fail, release, bundle) without Next's request pipeline
// (lib/api/fast-path.ts). Every worker test goes through it; these pin what the
// plumbing itself must keep: the app's headers and error shape, the body limit
// (never a half-written finish), decoded path segments, and a hung-up long poll
// that claims nothing.
import { beforeEach, describe, expect, it } from "vitest";
import { admin, server, sessionCookie } from "./support/client";
import { agentWithWorker, createTask, drainPool, taskRow } from "./tasks-helpers";

beforeEach(async () => {
  await drainPool();
});

async function claimedTask() {
  const { agent, token, worker } = await agentWithWorker();
  const task = await createTask({ title: "fast path", agentId: agent.id });
  expect((await worker.get("/api/worker/poll?waitMs=0")).status).toBe(200);
  return { agent, token, worker, task };
}

describe("the worker fast path", () => {
  it("answers with the app's security headers, no caching, and the one error shape", async () => {
    const { worker, task } = await claimedTask();
    const idle = await worker.get("/api/worker/poll?waitMs=0");
    expect(idle.status).toBe(204);
    expect(idle.headers.get("x-content-type-options")).toBe("nosniff");
    expect(idle.headers.get("x-frame-options")).toBe("DENY");

    const beat = await worker.post(`/api/worker/tasks/${task.id}/heartbeat`, { progress: "half way" });
    expect(beat.status).toBe(200);
    expect(beat.body).toEqual({ cancelled: false, status: "in_progress" });
    expect(beat.headers.get("cache-control")).toBe("no-store, no-transform");
    expect(beat.headers.get("content-type")).toMatch(/^application\/json/);

    const broken = await worker.post(`/api/worker/tasks/${task.id}/complete`, undefined, { raw: '{"output": "done' });
    expect(broken.status).toBe(400);
    expect(broken.body.error).toMatchObject({ code: "invalid_json" });
    expect(await taskRow(task.id)).toMatchObject({ status: "in_progress", output: null });

    // A path segment is decoded as Next decodes it: an escaped id is still just an unknown id.
    const unknown = await worker.post("/api/worker/tasks/%E2%9C%93%20nope/complete", { output: "x" });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: "not_found" });

    const anonymous = await fetch(`${server().baseUrl}/api/worker/tasks/${task.id}/complete`, { method: "POST", body: "{}" });
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { error: { code: string } }).error.code).toBe("unauthorized");
  });

  it("refuses a finish over 1 MiB, declared or streamed, and the task stays as it was", async () => {
    const { token, task } = await claimedTask();
    const url = `${server().baseUrl}/api/worker/tasks/${task.id}/complete`;
    const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };

    const declared = await fetch(url, { method: "POST", headers, body: JSON.stringify({ output: "x".repeat(1024 * 1024 + 10) }) });
    expect(declared.status).toBe(413);
    expect(((await declared.json()) as { error: { code: string } }).error.code).toBe("payload_too_large");

    const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"output": "'));
      },
      pull(controller) {
        if (sent >= 20) return controller.close();
        sent += 1;
        controller.enqueue(chunk);
      },
    });
    const streamed = await fetch(url, { method: "POST", headers, body, duplex: "half" } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(((await streamed.json()) as { error: { code: string } }).error.code).toBe("payload_too_large");

    expect(await taskRow(task.id)).toMatchObject({ status: "in_progress", output: null, finishedAt: null });
    const done = await fetch(url, { method: "POST", headers, body: JSON.stringify({ output: "fits" }) });
    expect(done.status).toBe(200);
    expect(await taskRow(task.id)).toMatchObject({ status: "completed", output: "fits" });
  });

  it("a long poll whose worker hung up claims nothing: the task waits for the worker's next poll", async () => {
    // The task is the agent's own (not the pool's), so no other test's worker can take it meanwhile.
    const agent = await agentWithWorker();
    const hangUp = new AbortController();
    const abandoned = fetch(`${server().baseUrl}/api/worker/poll?waitMs=20000`, {
      headers: { authorization: `Bearer ${agent.token}` },
      signal: hangUp.signal,
    }).catch((error: Error) => error);
    await new Promise((resolve) => setTimeout(resolve, 300));
    hangUp.abort();
    expect(await abandoned).toBeInstanceOf(Error);
    await new Promise((resolve) => setTimeout(resolve, 100));

    const task = await createTask({ title: "for the worker that comes back", agentId: agent.agent.id });
    // The abandoned poll would have been woken by it: it must not have claimed it for nobody.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await taskRow(task.id)).toMatchObject({ status: "pending", attempts: 0 });
    const reply = await agent.worker.get("/api/worker/poll?waitMs=5000");
    expect(reply.status).toBe(200);
    expect(reply.body.task.id).toBe(task.id);
    expect(await taskRow(task.id)).toMatchObject({ status: "in_progress", agentId: agent.agent.id, attempts: 1 });
  });

  it("serves memory search to a signed-in operator's browser session (cookie, JSON body) and to operator tokens", async () => {
    const name = `fast path lesson ${Date.now()}`;
    const stored = await admin().post("/api/v1/memories", {
      items: [{ name, content: "Quarantine flaky snapshot tests before a release." }],
    });
    expect(stored.status).toBe(201);
    const cookie = await sessionCookie(server().adminEmail, server().adminPassword);
    const response = await fetch(`${server().baseUrl}/api/v1/memories/search`, {
      method: "POST",
      // What the browser sends from the app's own page: its Origin.
      headers: { cookie, origin: server().baseUrl, "content-type": "application/json" },
      body: JSON.stringify({ query: "flaky snapshot tests", mode: "keyword" }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { results: Array<{ name: string }> };
    expect(body.results.map((result) => result.name)).toContain(name);

    const viaToken = await admin().post("/api/v1/memories/search", { query: "flaky snapshot tests", mode: "keyword" });
    expect(viaToken.body.results.map((result: { name: string }) => result.name)).toContain(name);
    const noBody = await fetch(`${server().baseUrl}/api/v1/memories/search`, {
      method: "POST",
      headers: { cookie, origin: server().baseUrl },
    });
    expect(noBody.status).toBe(415);
  });
});

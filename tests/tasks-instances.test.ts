// Two app instances on one database (the shared test server and a second server
// started on its DATABASE_URL): workers on both drain one pool with every task
// claimed exactly once, and a long poll waiting on one instance is answered with
// work that appeared through the other.
//
// On PostgreSQL the wake-up crosses instances by LISTEN/NOTIFY
// (lib/tasks/task-wakeup.pg.ts): a poll that waits less than the safety re-check
// (POLL_SAFETY_RECHECK_MS, 5 s, lib/tasks/settings.ts) still gets the task, which
// only a wake-up can bring. On SQLite instances do not wake each other, and the
// safety re-check finds the work: there the polls wait longer.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { server } from "./support/client";
import { openTestDb } from "./support/test-db";
import { startTestServer, type TestServer } from "./support/test-server";
import { agentWithWorker, createTask, drainPool } from "./tasks-helpers";
import { call } from "./worker-helpers";

let second: TestServer;

beforeAll(async () => {
  second = await startTestServer({ databaseUrl: server().databaseUrl });
});

afterAll(async () => {
  await second?.stop();
});

const crossWakes = () => server().store === "postgresql";
/** Below the safety re-check on PostgreSQL: only a wake-up from the other instance answers it in time. */
const waitMs = () => (crossWakes() ? 4_000 : 15_000);

/** A poll through the second instance. */
const pollOnSecond = (token: string, wait: number) => call(second, "GET", `/api/worker/poll?waitMs=${wait}`, undefined, token);

describe("two app instances on one database", () => {
  it("share one pool: workers polling both claim each task exactly once", async () => {
    await drainPool();
    const marker = `twin${Date.now().toString(36)}`;
    const created = new Set<string>();
    for (let i = 0; i < 30; i += 1) created.add((await createTask({ title: `${marker} ${i}`, priority: i % 3 })).id);
    const workers = [];
    for (let i = 0; i < 8; i += 1) workers.push(await agentWithWorker({ maxConcurrentTasks: 2 }));
    const claims: string[] = [];
    await Promise.all(
      workers.flatMap(({ worker, token }, index) =>
        [0, 1].map(async (lane) => {
          // Half the polls go to each instance.
          const onSecond = (index + lane) % 2 === 1;
          for (;;) {
            const reply = onSecond ? await pollOnSecond(token, 0) : await worker.get("/api/worker/poll?waitMs=0");
            if (reply.status === 204) return;
            expect(reply.status).toBe(200);
            const id = reply.body.task.id as string;
            claims.push(id);
            const done = onSecond
              ? await call(second, "POST", `/api/worker/tasks/${id}/complete`, { output: "done" }, token)
              : await worker.post(`/api/worker/tasks/${id}/complete`, { output: "done" });
            expect(done.status).toBe(200);
          }
        }),
      ),
    );
    expect(claims.filter((id, index) => claims.indexOf(id) !== index)).toEqual([]);
    expect(new Set(claims)).toEqual(created);
  });

  it("wakes a poll waiting on one instance for a task created through the other", async () => {
    await drainPool();
    const { agent, token } = await agentWithWorker();
    // Nothing for it yet.
    expect((await pollOnSecond(token, 0)).status).toBe(204);
    const waiting = pollOnSecond(token, waitMs());
    await new Promise((resolve) => setTimeout(resolve, 300));
    const task = await createTask({ title: "made on the first instance", agentId: agent.id });
    const reply = await waiting;
    expect(reply.status).toBe(200);
    expect(reply.body.task).toMatchObject({ id: task.id, agentId: agent.id, attempts: 1 });
  });

  it("wakes a pool poll on one instance for a task put in the pool through the other", async () => {
    await drainPool();
    const { token } = await agentWithWorker();
    expect((await pollOnSecond(token, 0)).status).toBe(204);
    const waiting = pollOnSecond(token, waitMs());
    await new Promise((resolve) => setTimeout(resolve, 300));
    const task = await createTask({ title: "pooled on the first instance" });
    const reply = await waiting;
    expect(reply.status).toBe(200);
    expect(reply.body.task.id).toBe(task.id);
  });

  it("wakes an agent waiting at its limit on one instance when its running task finishes through the other", async () => {
    const { agent, token, worker } = await agentWithWorker({ maxConcurrentTasks: 1 });
    const first = await createTask({ title: "running", agentId: agent.id });
    expect((await worker.get("/api/worker/poll?waitMs=0")).body.task.id).toBe(first.id);
    const next = await createTask({ title: "next in line", agentId: agent.id });
    // At its limit: the poll on the second instance waits for a free slot.
    const waiting = pollOnSecond(token, waitMs());
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await worker.post(`/api/worker/tasks/${first.id}/complete`, { output: "done" })).status).toBe(200);
    const reply = await waiting;
    expect(reply.status).toBe(200);
    expect(reply.body.task.id).toBe(next.id);
  });

  it("still wakes polls across instances after the listening connections were cut", async () => {
    if (crossWakes()) {
      // What a PostgreSQL restart or a fail-over does to them (lib/tasks/task-wakeup.pg.ts reconnects).
      const database = openTestDb(server().databaseUrl);
      try {
        const cut = await database.run(
          `SELECT pg_terminate_backend("pid") FROM pg_stat_activity WHERE "application_name" = ? AND "datname" = current_database()`,
          ["swarmdeck-task-listener"],
        );
        expect(cut).toBeGreaterThan(0);
      } finally {
        await database.close();
      }
    }
    const { agent, token } = await agentWithWorker();
    const waiting = pollOnSecond(token, waitMs());
    await new Promise((resolve) => setTimeout(resolve, 300));
    const task = await createTask({ title: "after the cut", agentId: agent.id });
    const reply = await waiting;
    expect(reply.status).toBe(200);
    expect(reply.body.task.id).toBe(task.id);
  });
});

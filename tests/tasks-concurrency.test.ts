// 30 workers (30 agents, each with its own token) drain 300 pool tasks over HTTP
// at once: every task is claimed exactly once and completed by its claimer.
import { describe, expect, it } from "vitest";
import { admin, client } from "./support/client";
import { agentWithWorker, database, drainPool } from "./tasks-helpers";

const WORKERS = 30;
const TASKS = 300;

describe("concurrent dispatch", () => {
  it(`${WORKERS} workers drain ${TASKS} pool tasks; each is claimed once and completed`, async () => {
    await drainPool();
    const marker = `drain${Date.now().toString(36)}`;
    const workers: Array<Awaited<ReturnType<typeof agentWithWorker>>> = [];
    for (let i = 0; i < WORKERS; i += 1) workers.push(await agentWithWorker());
    const created = new Set<string>();
    for (let i = 0; i < TASKS; i += 1) {
      const reply = await admin().post("/api/v1/tasks", { title: `${marker} ${i}`, priority: i % 3 });
      expect(reply.status).toBe(201);
      created.add(reply.body.task.id);
    }

    const claimedBy = new Map<string, string[]>();
    const errors: string[] = [];
    await Promise.all(
      workers.map(async ({ agent, token }) => {
        const http = client(token);
        for (;;) {
          const poll = await http.get("/api/worker/poll?waitMs=0");
          if (poll.status === 204) return;
          if (poll.status !== 200) return void errors.push(`poll ${poll.status}`);
          const id = poll.body.task.id as string;
          claimedBy.set(id, [...(claimedBy.get(id) ?? []), agent.id]);
          const done = await http.post(`/api/worker/tasks/${id}/complete`, { output: `done by ${agent.name}` });
          if (done.status !== 200) errors.push(`complete ${done.status}`);
        }
      }),
    );

    expect(errors).toEqual([]);
    expect(new Set(claimedBy.keys())).toEqual(created);
    for (const [, claimers] of claimedBy) expect(claimers).toHaveLength(1);
    const rows = await database().all<{ status: string; attempts: number; agentId: string; output: string; claims: number }>(
      `SELECT t."status", t."attempts", t."agentId", t."output",
         (SELECT COUNT(*) FROM "TaskEvent" e WHERE e."taskId" = t."id" AND e."type" = 'claimed') AS "claims"
       FROM "Task" t WHERE t."title" LIKE ?`,
      [`${marker} %`],
    );
    expect(rows).toHaveLength(TASKS);
    for (const row of rows) {
      expect(row).toMatchObject({ status: "completed", attempts: 1, claims: 1 });
    }
    const byAgent = new Map(workers.map(({ agent }) => [agent.id, agent.name]));
    for (const row of rows) expect(row.output).toBe(`done by ${byAgent.get(row.agentId)}`);
    // Work was shared, not done by one lucky worker.
    expect(new Set(rows.map((row) => row.agentId)).size).toBeGreaterThan(1);
  });
});

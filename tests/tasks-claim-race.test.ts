// Many agents polling at once, several polls per agent at the same moment, at one
// pool: every task is claimed exactly once (none twice, none lost) and no agent
// ever holds more tasks than its concurrency limit. On PostgreSQL the claims race
// through the real server's transactions (the agent's row lock, FOR UPDATE SKIP
// LOCKED: lib/tasks/dispatch.pg.ts); on SQLite the same assertions hold.
import { describe, expect, it } from "vitest";
import { admin } from "./support/client";
import { agentWithWorker, database, drainPool } from "./tasks-helpers";

const AGENTS = 16;
const POLLS_PER_AGENT = 4;
const LIMIT = 3;
const TASKS = 40;

type Worker = Awaited<ReturnType<typeof agentWithWorker>>;

async function createPoolTasks(marker: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const reply = await admin().post("/api/v1/tasks", { title: `${marker} ${i}`, priority: i % 4 });
    expect(reply.status).toBe(201);
    ids.push(reply.body.task.id);
  }
  return ids;
}

/** Polls until the server answers 204; records every task each answer handed out. */
async function pollUntilIdle(worker: Worker, waitMs: number, claims: Array<{ taskId: string; agentId: string }>, complete: boolean) {
  for (;;) {
    const reply = await worker.worker.get(`/api/worker/poll?waitMs=${waitMs}`);
    if (reply.status === 204) return;
    expect(reply.status).toBe(200);
    claims.push({ taskId: reply.body.task.id, agentId: worker.agent.id });
    if (complete) {
      const done = await worker.worker.post(`/api/worker/tasks/${reply.body.task.id}/complete`, { output: "done" });
      expect(done.status).toBe(200);
    }
  }
}

function expectExactlyOnce(claims: Array<{ taskId: string }>, created: string[]) {
  const counts = new Map<string, number>();
  for (const { taskId } of claims) counts.set(taskId, (counts.get(taskId) ?? 0) + 1);
  expect([...counts.entries()].filter(([, n]) => n > 1)).toEqual([]);
  expect(new Set(counts.keys())).toEqual(new Set(created));
}

describe("claims racing for one pool", () => {
  it(`${AGENTS} agents x ${POLLS_PER_AGENT} simultaneous polls claim ${TASKS} pool tasks exactly once, within each agent's limit`, async () => {
    await drainPool();
    const workers: Worker[] = [];
    for (let i = 0; i < AGENTS; i += 1) workers.push(await agentWithWorker({ maxConcurrentTasks: LIMIT }));
    const marker = `race${Date.now().toString(36)}`;
    const created = await createPoolTasks(marker, TASKS);

    const claims: Array<{ taskId: string; agentId: string }> = [];
    await Promise.all(workers.flatMap((worker) => Array.from({ length: POLLS_PER_AGENT }, () => pollUntilIdle(worker, 0, claims, false))));

    expectExactlyOnce(claims, created);
    const perAgent = new Map<string, number>();
    for (const { agentId } of claims) perAgent.set(agentId, (perAgent.get(agentId) ?? 0) + 1);
    for (const [, n] of perAgent) expect(n).toBeLessThanOrEqual(LIMIT);

    const rows = await database().all<{ id: string; status: string; agentId: string; attempts: number; claims: number }>(
      `SELECT t."id", t."status", t."agentId", t."attempts",
         (SELECT COUNT(*) FROM "TaskEvent" e WHERE e."taskId" = t."id" AND e."type" = 'claimed') AS "claims"
       FROM "Task" t WHERE t."title" LIKE ?`,
      [`${marker} %`],
    );
    expect(rows).toHaveLength(TASKS);
    const claimer = new Map(claims.map((claim) => [claim.taskId, claim.agentId]));
    for (const row of rows) {
      expect(row).toMatchObject({ status: "in_progress", attempts: 1, claims: 1, agentId: claimer.get(row.id) });
    }
    const sessions = await database().all<{ taskId: string; n: number }>(
      `SELECT s."taskId", COUNT(*) AS "n" FROM "Session" s JOIN "Task" t ON t."id" = s."taskId" WHERE t."title" LIKE ? GROUP BY s."taskId"`,
      [`${marker} %`],
    );
    expect(sessions).toHaveLength(TASKS);
    for (const session of sessions) expect(session.n).toBe(1);

    // Clean up: the tasks are finished by their claimers.
    for (const { taskId, agentId } of claims) {
      const worker = workers.find((candidate) => candidate.agent.id === agentId) as Worker;
      expect((await worker.worker.post(`/api/worker/tasks/${taskId}/complete`, { output: "done" })).status).toBe(200);
    }
  });

  it("long polls that were already waiting when the tasks appeared take each one exactly once", async () => {
    await drainPool();
    const workers: Worker[] = [];
    for (let i = 0; i < AGENTS; i += 1) workers.push(await agentWithWorker({ maxConcurrentTasks: 2 }));
    const marker = `wake${Date.now().toString(36)}`;

    const claims: Array<{ taskId: string; agentId: string }> = [];
    const polling = Promise.all(
      workers.flatMap((worker) => [pollUntilIdle(worker, 2_000, claims, true), pollUntilIdle(worker, 2_000, claims, true)]),
    );
    const created = await createPoolTasks(marker, TASKS);
    await polling;
    // Whatever the waiting polls left (each stops after 2 s without work) is taken now.
    for (const worker of workers) await pollUntilIdle(worker, 0, claims, true);

    expectExactlyOnce(claims, created);
    const rows = await database().all<{ status: string; attempts: number; claims: number }>(
      `SELECT t."status", t."attempts",
         (SELECT COUNT(*) FROM "TaskEvent" e WHERE e."taskId" = t."id" AND e."type" = 'claimed') AS "claims"
       FROM "Task" t WHERE t."title" LIKE ?`,
      [`${marker} %`],
    );
    expect(rows).toHaveLength(TASKS);
    for (const row of rows) expect(row).toMatchObject({ status: "completed", attempts: 1, claims: 1 });
  });
});

describe("transitions racing on one task", () => {
  it("a worker's complete, fail or give-back and an operator's cancel sent at once: exactly one applies, once", async () => {
    const { agent, worker } = await agentWithWorker({ maxConcurrentTasks: 12 });
    const tasks: string[] = [];
    for (let i = 0; i < 12; i += 1) {
      const reply = await admin().post("/api/v1/tasks", { title: `contested ${i}`, agentId: agent.id });
      tasks.push(reply.body.task.id);
    }
    for (let i = 0; i < tasks.length; i += 1) expect((await worker.get("/api/worker/poll?waitMs=0")).status).toBe(200);

    // Each race is between moves that rule each other out: after any one of them the others are refused (409).
    const races: Array<Array<{ name: string; status: string; send: (id: string) => Promise<{ status: number }> }>> = [
      [
        { name: "complete", status: "completed", send: (id) => worker.post(`/api/worker/tasks/${id}/complete`, { output: "mine" }) },
        { name: "fail", status: "failed", send: (id) => worker.post(`/api/worker/tasks/${id}/fail`, { failureReason: "broke" }) },
        { name: "cancel", status: "cancelled", send: (id) => admin().patch(`/api/v1/tasks/${id}`, { action: "cancel" }) },
      ],
      [
        { name: "complete", status: "completed", send: (id) => worker.post(`/api/worker/tasks/${id}/complete`, { output: "mine" }) },
        { name: "release", status: "pending", send: (id) => worker.post(`/api/worker/tasks/${id}/release`, { reason: "giving up" }) },
      ],
    ];
    const outcomes = await Promise.all(
      tasks.map(async (id, index) => {
        const race = races[index % races.length] as (typeof races)[number];
        const replies = await Promise.all([...race.map((move) => move.send(id)), worker.post(`/api/worker/tasks/${id}/heartbeat`, {})]);
        return { id, race, statuses: replies.slice(0, race.length).map((reply) => reply.status), heartbeat: replies.at(-1)?.status };
      }),
    );
    for (const { id, race, statuses, heartbeat } of outcomes) {
      expect(heartbeat).toBe(200);
      expect(statuses.filter((status) => status === 200)).toHaveLength(1);
      expect(statuses.filter((status) => status !== 200).every((status) => status === 409)).toBe(true);
      const winner = race[statuses.indexOf(200)] as (typeof race)[number];
      const detail = await admin().get(`/api/v1/tasks/${id}`);
      expect(detail.body.task.status).toBe(winner.status);
      const transitions = detail.body.events.filter((event: { type: string }) => event.type === "status" || event.type === "released");
      expect(transitions).toHaveLength(1);
      const actions = await database().all<{ action: string }>(
        `SELECT "action" FROM "AuditEvent" WHERE "targetId" = ? AND "action" IN ('task.completed', 'task.failed', 'task.cancelled', 'task.released')`,
        [id],
      );
      expect(actions).toHaveLength(1);
      const open = await database().all(`SELECT "id" FROM "Session" WHERE "taskId" = ? AND "endedAt" IS NULL`, [id]);
      expect(open).toEqual([]);
    }
    // What went back to the agent is cancelled, so no later test's worker meets it.
    for (const { id } of outcomes) await admin().patch(`/api/v1/tasks/${id}`, { action: "cancel" });
    const agentNow = await admin().get(`/api/v1/agents/${agent.id}`);
    expect(agentNow.body.agent.status).toBe("idle");
  });
});

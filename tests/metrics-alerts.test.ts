// Failure-rate alerts: one per episode, with an audit event, resolved when the
// rate is back under the threshold; too few tasks is no alert.
import { describe, expect, it } from "vitest";
import { admin, createAgent, server } from "./support/client";
import { openSeedDb, seedTask } from "./support/metrics-seed";
import { openTestDb } from "./support/test-db";

type Alert = {
  id: string;
  agentId: string | null;
  scope: string;
  failed: number;
  total: number;
  failureRate: number;
  resolvedAt: string | null;
};

async function seed(agentId: string, completed: number, failed: number) {
  const sqlite = openSeedDb(server().databaseUrl);
  const now = Date.now();
  for (let i = 0; i < completed; i += 1) await seedTask(sqlite, { agentId, status: "completed", at: now - 60_000, durationMs: 1000 });
  for (let i = 0; i < failed; i += 1) await seedTask(sqlite, { agentId, status: "failed", at: now - 60_000, failureReason: "boom" });
  await sqlite.close();
}

async function evaluate() {
  const reply = await admin().post("/api/v1/alerts/evaluate");
  expect(reply.status).toBe(200);
  return reply.body as { fired: Alert[]; resolved: Alert[]; config: { threshold: number; windowDays: number; minTasks: number } };
}

const openFor = async (agentId: string) =>
  ((await admin().get("/api/v1/alerts")).body.alerts as Alert[]).filter((alert) => alert.agentId === agentId);

describe("failure-rate alerts", () => {
  it("fires once per episode with an audit event, then resolves", async () => {
    const noisy = await createAgent();
    const quiet = await createAgent();
    await seed(noisy.id, 6, 4); // 40 % of 10
    await seed(quiet.id, 1, 1); // 50 % of 2: below the minimum task count

    const first = await evaluate();
    expect(first.config).toEqual({ threshold: 0.3, windowDays: 7, minTasks: 10 });
    expect(first.fired.filter((a) => a.agentId === noisy.id)).toHaveLength(1);
    expect(await openFor(quiet.id)).toEqual([]);
    const [open] = await openFor(noisy.id);
    expect(open).toMatchObject({ scope: "agent", failed: 4, total: 10, failureRate: 0.4, resolvedAt: null });

    // Still failing: no second alert.
    const second = await evaluate();
    expect(second.fired.filter((a) => a.agentId === noisy.id)).toEqual([]);
    expect(await openFor(noisy.id)).toHaveLength(1);

    const sqlite = openTestDb(server().databaseUrl);
    const fired = await sqlite.get(`SELECT count(*) AS "n" FROM "AuditEvent" WHERE "action" = 'alert.fired' AND "agentId" = ?`, [noisy.id]);
    expect(fired).toEqual({ n: 1 });
    await sqlite.close();

    // Back under the threshold: 4 of 20.
    await seed(noisy.id, 10, 0);
    const third = await evaluate();
    expect(third.resolved.filter((a) => a.agentId === noisy.id)).toHaveLength(1);
    expect(await openFor(noisy.id)).toEqual([]);
    const recent = (await admin().get("/api/v1/alerts?recent=1")).body.alerts as Alert[];
    expect(recent.find((a) => a.id === open?.id)).toMatchObject({ failureRate: 0.2, failed: 4, total: 20 });
    const db = openTestDb(server().databaseUrl);
    expect(
      await db.get(`SELECT count(*) AS "n" FROM "AuditEvent" WHERE "action" = 'alert.resolved' AND "agentId" = ?`, [noisy.id]),
    ).toEqual({
      n: 1,
    });
    await db.close();
  });
});

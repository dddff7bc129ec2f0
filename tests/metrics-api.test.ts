// Every metric endpoint against a seeded history with exactly known answers.
// The history lives in March 2025, a range no other test writes to.
import { beforeAll, describe, expect, it } from "vitest";
import { agentWithWorker } from "./identity-helpers";
import { admin, client, createAgent, server } from "./support/client";
import { openSeedDb, seedMemory, seedProposal, seedRetrieval, seedTask, seedVersion } from "./support/metrics-seed";

const at = (day: string, hour = 12) => Date.parse(`${day}T${String(hour).padStart(2, "0")}:00:00Z`);
const D0 = "2025-03-02";
const D1 = "2025-03-03";
const D2 = "2025-03-04";
const D3 = "2025-03-05";
/** Durations are reported from histogram buckets, within the documented 9.05 % of the true value. */
function near(reported: unknown, truth: number) {
  expect(typeof reported).toBe("number");
  expect(Math.abs((reported as number) - truth) / truth, `${reported} for ${truth}`).toBeLessThanOrEqual(0.0905);
}
const range = `from=${D1}&to=${D3}`;

let alpha: { id: string; name: string };
let beta: { id: string; name: string };
let soul1: string;
let soul2: string;
let identityVersion: string;

beforeAll(async () => {
  alpha = await createAgent();
  beta = await createAgent();
  const sqlite = openSeedDb(server().databaseUrl);
  try {
    soul1 = await seedVersion(sqlite, { agentId: alpha.id, kind: "SOUL", content: "# Soul\nBe careful.\n", source: "editor", at: at(D0) });
    identityVersion = await seedVersion(sqlite, {
      agentId: alpha.id,
      kind: "IDENTITY",
      content: "I write Go.",
      source: "agent_write",
      authorType: "agent",
      at: at(D1, 8),
    });
    soul2 = await seedVersion(sqlite, {
      agentId: alpha.id,
      kind: "SOUL",
      content: "# Soul\nBe careful.\nAsk before deleting.\n",
      source: "approved_proposal",
      authorType: "agent",
      reason: "asked too little",
      at: at(D2, 6),
    });
    const a = alpha.id;
    // alpha, D1 under SOUL v1: 4 completed, 1 failed
    for (const durationMs of [2000, 2000, 60_000, 60_000])
      await seedTask(sqlite, { agentId: a, status: "completed", at: at(D1), durationMs, soulVersionId: soul1 });
    await seedTask(sqlite, {
      agentId: a,
      status: "failed",
      at: at(D1),
      durationMs: 30_000,
      failureReason: "Timeout after 30s on task cm3k2x9a0000qz8ab12cd34ef",
      soulVersionId: soul1,
    });
    // alpha, D2 under SOUL v2: 2 completed, 2 failed, 1 cancelled
    await seedTask(sqlite, { agentId: a, status: "completed", at: at(D2), durationMs: 2000, soulVersionId: soul2 });
    await seedTask(sqlite, { agentId: a, status: "completed", at: at(D2), durationMs: 600_000, soulVersionId: soul2 });
    await seedTask(sqlite, {
      agentId: a,
      status: "failed",
      at: at(D2),
      durationMs: 45_000,
      failureReason: "Timeout after 45s on task cm3k2x9a0000qz8ab99zz11yy",
      soulVersionId: soul2,
    });
    await seedTask(sqlite, {
      agentId: a,
      status: "failed",
      at: at(D2),
      durationMs: 5000,
      failureReason: "Exit code 137\nkilled",
      soulVersionId: soul2,
    });
    await seedTask(sqlite, { agentId: a, status: "cancelled", at: at(D2), soulVersionId: soul2 });
    // beta, D1: 1 completed, 3 failed (no SOUL); D3: 2 still pending
    await seedTask(sqlite, { agentId: beta.id, status: "completed", at: at(D1), durationMs: 10_000 });
    await seedTask(sqlite, { agentId: beta.id, status: "failed", at: at(D1), failureReason: "Exit code 1" });
    await seedTask(sqlite, { agentId: beta.id, status: "failed", at: at(D1), failureReason: "Exit code 2" });
    await seedTask(sqlite, {
      agentId: beta.id,
      status: "failed",
      at: at(D1),
      failureReason: "npm ERR! 404 request 1b4e28ba-2fa1-11d2-883f-0016d3cca427",
    });
    await seedTask(sqlite, { agentId: beta.id, status: "pending", at: at(D3) });
    await seedTask(sqlite, { agentId: beta.id, status: "pending", at: at(D3) });
    // proposals of alpha: approved as proposed (D1), approved with edits (D2), rejected (D2), pending
    await seedProposal(sqlite, { agentId: a, kind: "SOUL", status: "approved", at: at(D1) });
    await seedProposal(sqlite, { agentId: a, kind: "SOUL", status: "approved", edited: true, at: at(D2) });
    await seedProposal(sqlite, { agentId: a, kind: "SOUL", status: "rejected", at: at(D2) });
    await seedProposal(sqlite, { agentId: a, kind: "SOUL", status: "pending", at: at(D2) });
    // memories: alpha 2 before the range, 3 in it; one swarm memory
    await seedMemory(sqlite, { agentId: a, source: "manual", at: at("2025-02-01") });
    await seedMemory(sqlite, { agentId: a, source: "manual", at: at("2025-02-02") });
    await seedMemory(sqlite, { agentId: a, source: "task_completion", at: at(D1) });
    await seedMemory(sqlite, { agentId: a, source: "task_completion", at: at(D1) });
    await seedMemory(sqlite, { agentId: a, source: "reflection", at: at(D2) });
    await seedMemory(sqlite, { agentId: null, source: "lead_feedback", at: at(D2) });
    await seedRetrieval(sqlite, {
      agentId: a,
      mode: "hybrid",
      embeddingUsed: true,
      resultCount: 3,
      topScore: 0.8,
      threshold: 0.5,
      at: at(D1),
    });
    await seedRetrieval(sqlite, {
      agentId: a,
      mode: "keyword",
      embeddingUsed: false,
      resultCount: 0,
      topScore: null,
      threshold: 0.5,
      at: at(D1),
    });
    await seedRetrieval(sqlite, {
      agentId: a,
      mode: "vector",
      embeddingUsed: true,
      resultCount: 2,
      topScore: 0.4,
      threshold: 0.5,
      at: at(D2),
    });
  } finally {
    await sqlite.close();
  }
});

describe("GET /api/v1/metrics/overview", () => {
  it("counts, rates, durations and throughput for the whole swarm", async () => {
    const { status, body } = await admin().get(`/api/v1/metrics/overview?${range}`);
    expect(status).toBe(200);
    expect(body.range).toEqual({ from: D1, to: D3, days: 3 });
    expect(body.tasks).toEqual({ created: 16, completed: 7, failed: 6, cancelled: 1, completionRate: 7 / 13, failureRate: 6 / 13 });
    // completed durations: 2000 ×3, 10 000, 60 000 ×2, 600 000 → median is the 4th, p90 the 7th
    expect(body.durations).toEqual({
      count: 7,
      meanMs: (2000 * 3 + 10_000 + 60_000 * 2 + 600_000) / 7,
      medianMs: expect.any(Number),
      p90Ms: expect.any(Number),
      bucketErrorPct: 9.05,
    });
    near(body.durations.medianMs, 10_000);
    near(body.durations.p90Ms, 600_000);
    expect(body.throughput.completedPerDay).toBeCloseTo(7 / 3, 10);
  });

  it("filters by agent", async () => {
    const { body } = await admin().get(`/api/v1/metrics/overview?${range}&agentId=${alpha.id}`);
    expect(body.tasks).toEqual({ created: 10, completed: 6, failed: 3, cancelled: 1, completionRate: 6 / 9, failureRate: 3 / 9 });
    near(body.durations.medianMs, 2000);
    near(body.durations.p90Ms, 600_000);
  });

  it("matches a count over the Task rows (the rollups are exact)", async () => {
    const sqlite = openSeedDb(server().databaseUrl);
    const counted = await sqlite.all<{ status: string; n: number }>(
      `SELECT "status", count(*) AS "n" FROM "Task" WHERE "agentId" IN (?, ?) AND "finishedAt" >= ? AND "finishedAt" < ? GROUP BY "status"`,
      [alpha.id, beta.id, new Date(`${D1}T00:00:00Z`), new Date("2025-03-06T00:00:00Z")],
    );
    await sqlite.close();
    const { body } = await admin().get(`/api/v1/metrics/overview?${range}`);
    expect(Object.fromEntries(counted.map((row) => [row.status, row.n]))).toEqual({
      completed: body.tasks.completed,
      failed: body.tasks.failed,
      cancelled: body.tasks.cancelled,
    });
  });

  it("rejects a bad range with a clear 400 and needs a signed-in caller", async () => {
    const reversed = await admin().get(`/api/v1/metrics/overview?from=${D3}&to=${D1}`);
    expect(reversed.status).toBe(400);
    expect(reversed.body.error.message).toMatch(/from/);
    const garbage = await admin().get("/api/v1/metrics/overview?from=yesterday");
    expect(garbage.status).toBe(400);
    expect(garbage.body.error.code).toBe("validation_failed");
    const tooLong = await admin().get("/api/v1/metrics/overview?from=2020-01-01&to=2025-01-01");
    expect(tooLong.status).toBe(400);
    // A day the calendar does not have is refused, not read as the day it rolls over to.
    for (const day of ["2026-02-30", "2026-02-29", "2026-04-31", "2026-06-31T12:00:00Z"]) {
      const impossible = await admin().get(`/api/v1/metrics/overview?from=${day}&to=2026-07-10`);
      expect(impossible.status, day).toBe(400);
      expect(impossible.body.error.code, day).toBe("validation_failed");
      expect(JSON.stringify(impossible.body.error.details), day).toContain("not a real date");
    }
    expect((await admin().get("/api/v1/metrics/overview?from=2028-02-29&to=2028-03-01")).status).toBe(200);
    expect((await client().get("/api/v1/metrics/overview")).status).toBe(401);
  });
});

describe("chart endpoints", () => {
  it("gives per-day completion and failure rates per agent", async () => {
    const { body } = await admin().get(`/api/v1/metrics/tasks?${range}`);
    const series = body.agents.find((agent: { agentId: string }) => agent.agentId === alpha.id);
    expect(series.points.map((p: { day: string; completionRate: number | null }) => [p.day, p.completionRate])).toEqual([
      [D1, 4 / 5],
      [D2, 2 / 4],
      [D3, null],
    ]);
    expect(series.points[1]).toMatchObject({ completed: 2, failed: 2, cancelled: 1 });
    near(series.points[1].medianMs, 2000);
    near(series.points[1].p90Ms, 600_000);
    expect(body.swarm.map((p: { failed: number }) => p.failed)).toEqual([4, 2, 0]);
    const filtered = await admin().get(`/api/v1/metrics/tasks?${range}&agentId=${beta.id}`);
    expect(filtered.body.agents.map((agent: { agentId: string }) => agent.agentId)).toEqual([beta.id]);
  });

  it("groups failure reasons with ids and numbers normalised out", async () => {
    const { body } = await admin().get(`/api/v1/metrics/failures?${range}`);
    expect(body.totalFailed).toBe(6);
    expect(
      body.groups.map((g: { key: string; count: number; agents: number; recurring: boolean }) => [g.key, g.count, g.agents, g.recurring]),
    ).toEqual([
      ["exit code <n>", 3, 2, true],
      ["timeout after <n>s on task <id>", 2, 1, true],
      ["npm err! <n> request <id>", 1, 1, false],
    ]);
    expect(body.series.map((point: { counts: number[] }) => point.counts)).toEqual([
      [2, 1, 1],
      [1, 1, 0],
      [0, 0, 0],
    ]);
  });

  it("shows the outcome of each SOUL.md version, before and after the change", async () => {
    const { status, body } = await admin().get(`/api/v1/metrics/soul-outcomes?agentId=${alpha.id}`);
    expect(status).toBe(200);
    const v1 = body.versions.find((v: { versionId: string }) => v.versionId === soul1);
    const v2 = body.versions.find((v: { versionId: string }) => v.versionId === soul2);
    expect(v1).toMatchObject({ tasks: 5, completed: 4, failed: 1, successRate: 0.8, medianMs: 31_000, meanMs: 31_000 });
    expect(v2).toMatchObject({
      tasks: 4,
      completed: 2,
      failed: 2,
      successRate: 0.5,
      medianMs: 301_000,
      previousVersionId: soul1,
      source: "approved_proposal",
    });
    expect(v2.successRateChange).toBeCloseTo(-0.3, 10);
    expect(v2.medianMsChange).toBe(270_000);
    const noSoul = await admin().get(`/api/v1/metrics/soul-outcomes?agentId=${beta.id}`);
    expect(noSoul.body.versions[0]).toMatchObject({ versionId: null, tasks: 4, completed: 1, failed: 3, successRate: 0.25 });
    expect((await admin().get("/api/v1/metrics/soul-outcomes")).status).toBe(400);
    expect((await admin().get("/api/v1/metrics/soul-outcomes?agentId=nope")).status).toBe(404);
  });

  it("draws the identity timeline and opens a version beside its parent", async () => {
    const { body } = await admin().get(`/api/v1/metrics/identity?${range}&agentId=${alpha.id}`);
    expect(body.versions.map((v: { id: string; kind: string; source: string }) => [v.id, v.kind, v.source])).toEqual([
      [identityVersion, "IDENTITY", "agent_write"],
      [soul2, "SOUL", "approved_proposal"],
    ]);
    expect(body.bySource).toEqual({ agent_write: 1, approved_proposal: 1 });
    const diff = await admin().get(`/api/v1/metrics/identity/versions/${soul2}`);
    expect(diff.status).toBe(200);
    expect(diff.body.version.content).toContain("Ask before deleting.");
    expect(diff.body.parent).toMatchObject({ id: soul1, content: "# Soul\nBe careful.\n" });
    expect((await admin().get("/api/v1/metrics/identity/versions/..%2F..%2Fetc")).status).toBe(400);
    expect((await admin().get("/api/v1/metrics/identity/versions/unknown")).status).toBe(404);
  });

  it("counts proposals approved, approved with edits and rejected per day", async () => {
    const { body } = await admin().get(`/api/v1/metrics/proposals?${range}&agentId=${alpha.id}`);
    expect(body.totals).toEqual({ approved: 1, edited: 1, rejected: 1, pending: 1 });
    expect(body.series).toEqual([
      { day: D1, approved: 1, edited: 0, rejected: 0 },
      { day: D2, approved: 0, edited: 1, rejected: 1 },
      { day: D3, approved: 0, edited: 0, rejected: 0 },
    ]);
  });

  it("grows memory per agent and source, and reports retrieval health", async () => {
    const { body } = await admin().get(`/api/v1/metrics/memory?${range}&agentId=${alpha.id}`);
    expect(body.byAgent).toHaveLength(1);
    expect(body.byAgent[0]).toMatchObject({ key: alpha.id, start: 2, total: 5 });
    expect(body.byAgent[0].points.map((p: { total: number }) => p.total)).toEqual([4, 5, 5]);
    expect(Object.fromEntries(body.bySource.map((s: { key: string; total: number }) => [s.key, s.total]))).toEqual({
      manual: 2,
      task_completion: 2,
      reflection: 1,
    });
    expect(body.retrieval).toMatchObject({
      total: 3,
      byMode: { hybrid: 1, keyword: 1, vector: 1 },
      hitRate: 1 / 3,
      emptyRate: 1 / 3,
      embeddingUsedRate: 2 / 3,
    });
    expect(body.retrieval.meanTopScore).toBeCloseTo(0.6, 10);
    const swarm = await admin().get(`/api/v1/metrics/memory?${range}`);
    expect(swarm.body.byAgent.find((s: { key: string }) => s.key === "")).toMatchObject({ label: "(swarm)", total: 1 });
  });

  it("writes the weekly report: this week against last, top reasons, biggest movers", async () => {
    const { body } = await admin().get("/api/v1/metrics/weekly-report?to=2025-03-10");
    expect(body.thisWeek).toMatchObject({ from: "2025-03-04", to: "2025-03-10" });
    expect(body.thisWeek.tasks).toMatchObject({ completed: 2, failed: 2, failureRate: 0.5 });
    expect(body.lastWeek.tasks).toMatchObject({ completed: 5, failed: 4, failureRate: 4 / 9 });
    expect(body.change).toMatchObject({ completed: -3, failed: -2 });
    expect(body.change.failureRate).toBeCloseTo(0.5 - 4 / 9, 10);
    expect(
      body.topFailureReasons.map((r: { key: string; count: number; lastWeekCount: number }) => [r.key, r.count, r.lastWeekCount]),
    ).toEqual([
      ["exit code <n>", 1, 2],
      ["timeout after <n>s on task <id>", 1, 1],
    ]);
    expect(body.biggestChanges[0]).toMatchObject({ agentId: alpha.id, thisWeek: { failureRate: 0.5 }, lastWeek: { failureRate: 0.2 } });
    expect(body.biggestChanges[0].failureRateChange).toBeCloseTo(0.3, 10);
    const betaRow = body.biggestChanges.find((row: { agentId: string }) => row.agentId === beta.id);
    expect(betaRow.failureRateChange).toBeNull();
  });

  it("reads millisecond tasks at their size: the overview's median agrees with the SOUL table's exact one", async () => {
    // Scripted tasks take 5–19 ms; the median of these eleven is 9 ms.
    const quick = await createAgent();
    const day = "2025-04-10";
    const sqlite = openSeedDb(server().databaseUrl);
    let soul = "";
    try {
      soul = await seedVersion(sqlite, {
        agentId: quick.id,
        kind: "SOUL",
        content: "# Soul\nBe quick.\n",
        source: "editor",
        at: at("2025-04-09"),
      });
      for (const durationMs of [5, 6, 7, 8, 9, 9, 10, 12, 14, 19, 19]) {
        await seedTask(sqlite, { agentId: quick.id, status: "completed", at: at(day), durationMs, soulVersionId: soul });
      }
    } finally {
      await sqlite.close();
    }
    const overview = await admin().get(`/api/v1/metrics/overview?from=${day}&to=${day}&agentId=${quick.id}`);
    expect(overview.status).toBe(200);
    const median = overview.body.durations.medianMs as number;
    expect(Math.abs(median - 9) / 9).toBeLessThanOrEqual(overview.body.durations.bucketErrorPct / 100);
    const souls = await admin().get(`/api/v1/metrics/soul-outcomes?agentId=${quick.id}`);
    expect(souls.body.versions.find((v: { versionId: string }) => v.versionId === soul)).toMatchObject({ completed: 11, medianMs: 9 });
  });

  it("counts a failure once everywhere, also when the task was retried and then cancelled or failed again", async () => {
    const { agent, worker } = await agentWithWorker();
    const run = async (taskId: string, reason: string) => {
      expect((await worker.get("/api/worker/poll")).body.task.id).toBe(taskId);
      expect((await worker.post(`/api/worker/tasks/${taskId}/fail`, { failureReason: reason })).status).toBe(200);
    };
    // Failed, retried, cancelled: one failure.
    const first = (await admin().post("/api/v1/tasks", { title: "flaky then dropped", agentId: agent.id })).body.task.id;
    await run(first, "disk full on /tmp");
    expect((await admin().patch(`/api/v1/tasks/${first}`, { action: "retry" })).status).toBe(200);
    expect((await admin().patch(`/api/v1/tasks/${first}`, { action: "cancel" })).status).toBe(200);
    // Failed, retried, failed again: two failures.
    const second = (await admin().post("/api/v1/tasks", { title: "flaky twice", agentId: agent.id })).body.task.id;
    await run(second, "disk full on /tmp");
    expect((await admin().patch(`/api/v1/tasks/${second}`, { action: "retry" })).status).toBe(200);
    await run(second, "npm test: 2 failing");

    const overview = await admin().get(`/api/v1/metrics/overview?agentId=${agent.id}`);
    expect(overview.body.tasks).toMatchObject({ failed: 3, cancelled: 1 });
    const failures = await admin().get(`/api/v1/metrics/failures?agentId=${agent.id}`);
    expect(failures.body.totalFailed).toBe(3);
    const counts = Object.fromEntries(
      failures.body.groups.map((group: { example: string; count: number }) => [group.example, group.count]),
    );
    expect(counts).toEqual({ "disk full on /tmp": 2, "npm test: 2 failing": 1 });
  });

  it("gives searches the same hit rate on /metrics as the Memory page's health panel", async () => {
    const { worker } = await agentWithWorker();
    expect(
      (
        await worker.post("/api/worker/memories", {
          name: "Cache the npm install",
          content: "Cache ~/.npm between CI runs keyed on the lock file.",
        })
      ).status,
    ).toBe(201);
    expect((await worker.post("/api/worker/memories/search", { query: "cache the npm install between CI runs" })).status).toBe(200);
    expect((await worker.post("/api/worker/memories/search", { query: "zebra quasar marmalade" })).status).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    const metrics = await admin().get(`/api/v1/metrics/memory?from=${today}&to=${today}`);
    const health = await admin().get("/api/v1/memories/health?days=1");
    expect(metrics.body.retrieval.hitRate).toEqual(expect.any(Number));
    expect(metrics.body.retrieval.hitRate).toBeGreaterThan(0);
    expect(metrics.body.retrieval.hitRate).toBeLessThan(1);
    expect(health.body.hitRate).toBe(metrics.body.retrieval.hitRate);
  });
});

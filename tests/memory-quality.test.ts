// Retrieval quality on a small fixed set: 55 realistic lessons, 26 queries
// phrased differently from the lessons. hit@5 is printed for the embedded
// default (no provider: local word vectors, related words, detail-aware
// ranking) and hybrid search with a (fake) OpenAI-compatible provider; the
// default injection threshold keeps the right lesson while rejecting an
// unrelated question in both. The full labelled set is `npm run bench:retrieval`.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_INJECT_THRESHOLD } from "@/lib/memory/scoring";
import { type Api, apiClient, uniqueAgentName, waitFor } from "./fixtures/memory/http";
import { LESSONS, PROBES } from "./fixtures/memory/quality-corpus";
import { server } from "./support/client";
import { type FakeOpenAI, startFakeOpenAI } from "./support/fake-openai";
import { startTestServer, type TestServer } from "./support/test-server";

let fake: FakeOpenAI | null = null;
let second: TestServer | null = null;

beforeAll(async () => {
  fake = await startFakeOpenAI();
  second = await startTestServer({ env: { OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: "sk-fake", EMBEDDING_DIMENSIONS: "512" } });
}, 180_000);

afterAll(async () => {
  await second?.stop();
  await fake?.stop();
});

async function seed(admin: Api) {
  const agent = (await admin.post("/api/v1/agents", { name: uniqueAgentName("quality") })).body.agent as { id: string };
  const reply = await admin.post("/api/v1/memories", {
    items: LESSONS.map((lesson) => ({
      name: lesson.name,
      content: lesson.content,
      scope: "agent",
      agentId: agent.id,
      source: lesson.source ?? "task_failure",
    })),
  });
  expect(reply.status).toBe(201);
  const ids = reply.body.ids as number[];
  expect(ids).toHaveLength(LESSONS.length);
  await waitFor("embeddings", async () => {
    const health = (await admin.get("/api/v1/memories/health?days=1")).body;
    return health.totals.pending === 0 && health.totals.embedded >= LESSONS.length;
  });
  return { agentId: agent.id, idOf: new Map(LESSONS.map((lesson, i) => [lesson.key, ids[i]!])) };
}

async function measure(label: string, admin: Api) {
  const { agentId, idOf } = await seed(admin);
  let hits = 0;
  let top1 = 0;
  let aboveThreshold = 0;
  const misses: string[] = [];
  for (const probe of PROBES) {
    const reply = await admin.post("/api/v1/memories/search", { query: probe.query, limit: 5, agentId, scope: "agent" });
    expect(reply.status).toBe(200);
    expect(reply.body.mode).toBe("hybrid");
    const results = reply.body.results as { id: number; score: number }[];
    const rank = results.findIndex((result) => result.id === idOf.get(probe.expect));
    if (rank >= 0) {
      hits++;
      if (rank === 0) top1++;
      if ((results[rank]?.score ?? 0) >= DEFAULT_INJECT_THRESHOLD) aboveThreshold++;
    } else misses.push(probe.query);
  }
  const unrelated = await admin.post("/api/v1/memories/search", {
    query: "a good recipe for banana bread with walnuts",
    limit: 5,
    agentId,
    scope: "agent",
  });
  const unrelatedTop = (unrelated.body.results[0]?.score as number | undefined) ?? 0;
  const hitAt5 = hits / PROBES.length;
  console.log(
    `[memory quality] ${label}: hit@5 ${hitAt5.toFixed(2)} (${hits}/${PROBES.length}), top-1 ${(top1 / PROBES.length).toFixed(2)}, ` +
      `right lesson above the ${DEFAULT_INJECT_THRESHOLD} threshold ${aboveThreshold}/${hits}, unrelated question's top score ${unrelatedTop.toFixed(2)}` +
      (misses.length ? `\n  missed: ${misses.join(" | ")}` : ""),
  );
  return { hitAt5, aboveThreshold, hits, unrelatedTop };
}

describe("retrieval quality", () => {
  it("finds the right lesson in the top 5 with the embedded default (no provider)", async () => {
    const embedded = await measure("embedded default (no provider)", apiClient(server().baseUrl, server().adminToken));
    expect(embedded.hitAt5).toBeGreaterThanOrEqual(0.85);
    expect(embedded.aboveThreshold / embedded.hits).toBeGreaterThanOrEqual(0.7);
    expect(embedded.unrelatedTop).toBeLessThan(DEFAULT_INJECT_THRESHOLD);
  });

  it("finds it as well with a provider (hybrid search), and the threshold keeps most right lessons while rejecting the unrelated question", async () => {
    const hybrid = await measure("hybrid (fake embedder)", apiClient(second!.baseUrl, second!.adminToken));
    expect(hybrid.hitAt5).toBeGreaterThanOrEqual(0.85);
    expect(hybrid.aboveThreshold / hybrid.hits).toBeGreaterThanOrEqual(0.7);
    expect(hybrid.unrelatedTop).toBeLessThan(DEFAULT_INJECT_THRESHOLD);
  });
});

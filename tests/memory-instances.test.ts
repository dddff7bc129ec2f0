// Memory search sees every app instance's writes. On PostgreSQL two app
// instances serve one database: a memory stored, embedded, archived or deleted
// through one is found (or gone) by keyword, vector and hybrid search through the
// other at once, with the embedded default (each memory embedded as it is
// stored) and with a provider (embedded in the background by the instance that
// stored it). On SQLite one process serves a database file, so the writer and
// the reader are the same instance and the same checks hold there.
import { createHash } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Api, agentWithToken, apiClient, waitFor, waitForEmbeddings } from "./fixtures/memory/http";
import { server } from "./support/client";
import { type FakeOpenAI, fakeEmbedding, startFakeOpenAI } from "./support/fake-openai";
import { openTestDb, testStore } from "./support/test-db";
import { startTestServer, type TestServer } from "./support/test-server";

type Instance = { baseUrl: string; adminToken: string; databaseUrl: string };
type Pair = { writer: Instance; reader: Instance };

const twoInstances = testStore() === "postgresql";
let fake: FakeOpenAI | null = null;
const started: TestServer[] = [];
let embeddedPair: Pair;
let providerPair: Pair;

async function secondOn(first: Instance, env: Record<string, string> = {}): Promise<Instance> {
  if (!twoInstances) return first;
  const second = await startTestServer({ databaseUrl: first.databaseUrl, env });
  started.push(second);
  return second;
}

beforeAll(async () => {
  fake = await startFakeOpenAI();
  const providerEnv = { OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: "sk-fake", EMBEDDING_DIMENSIONS: "256" };
  const withProvider = await startTestServer({ env: providerEnv });
  started.push(withProvider);
  const shared = server();
  embeddedPair = { writer: shared, reader: await secondOn(shared) };
  providerPair = { writer: withProvider, reader: await secondOn(withProvider, providerEnv) };
}, 300_000);

afterAll(async () => {
  for (const instance of started.reverse()) await instance.stop();
  await fake?.stop();
});

type Hit = { id: number; score: number; vectorScore: number | null; keywordScore: number };

function instancesSuite(label: string, pair: () => Pair) {
  describe(label, () => {
    let writerAdmin: Api;
    let readerAdmin: Api;
    let alice: { agent: { id: string }; writer: Api; reader: Api };
    let bob: { agent: { id: string }; reader: Api };

    async function search(api: Api, path: string, query: string, mode?: string) {
      const reply = await api.post(path, { query, limit: 20, ...(mode ? { mode } : {}) });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      return reply.body as { mode: string; results: Hit[]; fallbackReason: string | null };
    }

    beforeAll(async () => {
      const { writer, reader } = pair();
      writerAdmin = apiClient(writer.baseUrl, writer.adminToken);
      readerAdmin = apiClient(reader.baseUrl, reader.adminToken);
      const a = await agentWithToken(writerAdmin, {}, writer.databaseUrl);
      const b = await agentWithToken(writerAdmin, {}, writer.databaseUrl);
      alice = { agent: a.agent, writer: apiClient(writer.baseUrl, a.token), reader: apiClient(reader.baseUrl, a.token) };
      bob = { agent: b.agent, reader: apiClient(reader.baseUrl, b.token) };
      // The reader's vector index is loaded (a search starts it) before anything below is written.
      await waitFor("the reader's vector index", async () => {
        const reply = await search(readerAdmin, "/api/v1/memories/search", "warm up the index", "vector");
        return reply.mode === "vector";
      });
    });

    it("finds a memory stored through one instance by keyword, vector and hybrid search through the other", async () => {
      const marker = `quillfeather${Date.now().toString(36)}`;
      const stored = await alice.writer.post("/api/worker/memories", {
        name: `Release train ${marker}`,
        content: `The ${marker} release train leaves on Thursdays; tag the build with the sprint number before merging.`,
      });
      expect(stored.status, JSON.stringify(stored.body)).toBe(201);
      const [id] = stored.body.ids as number[];
      await waitForEmbeddings(writerAdmin, [id!]);

      // Modes are the operator's to choose (a worker's search is always the automatic one).
      const keyword = await search(readerAdmin, "/api/v1/memories/search", `${marker} release train`, "keyword");
      expect(keyword.mode).toBe("keyword");
      expect(keyword.results.map((hit) => hit.id)).toContain(id);

      const vector = await search(readerAdmin, "/api/v1/memories/search", `${marker} release train leaves thursdays`, "vector");
      expect(vector.mode).toBe("vector");
      const byMeaning = vector.results.find((hit) => hit.id === id);
      expect(byMeaning?.vectorScore ?? 0).toBeGreaterThan(0);

      const hybrid = await search(alice.reader, "/api/worker/memories/search", `${marker} release train thursdays`);
      expect(hybrid.mode).toBe("hybrid");
      const best = hybrid.results[0];
      expect(best?.id).toBe(id);
      expect(best?.vectorScore ?? 0).toBeGreaterThan(0);
      expect(best?.keywordScore ?? 0).toBeGreaterThan(0);

      // Visibility holds on the reader too: Bob does not see Alice's agent-scope memory.
      const his = await search(bob.reader, "/api/worker/memories/search", `${marker} release train thursdays`);
      expect(his.mode).toBe("hybrid");
      expect(his.results.map((hit) => hit.id)).not.toContain(id);
    });

    it("finds a swarm memory stored through the second instance through the first (both directions)", async () => {
      const marker = `marblewing${Date.now().toString(36)}`;
      const stored = await alice.reader.post("/api/worker/memories", {
        name: `Flaky ${marker} suite`,
        content: `The ${marker} integration suite flakes when the cache container starts late; wait for its health check.`,
        scope: "swarm",
      });
      expect(stored.status).toBe(201);
      const [id] = stored.body.ids as number[];
      await waitForEmbeddings(readerAdmin, [id!]);
      const hybrid = await search(writerAdmin, "/api/v1/memories/search", `${marker} integration suite flakes cache`);
      expect(hybrid.mode).toBe("hybrid");
      expect(hybrid.results[0]?.id).toBe(id);
      const vector = await search(writerAdmin, "/api/v1/memories/search", `${marker} integration suite flakes cache`, "vector");
      expect(vector.results.map((hit) => hit.id)).toContain(id);
    });

    it("stores the same text sent through both instances at once only once (dedup by content hash)", async () => {
      const content = `The ${Date.now().toString(36)}-gannet cache must be flushed after every schema change.`;
      const body = { name: "Flush the cache", content };
      const replies = await Promise.all(
        Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? alice.writer : alice.reader).post("/api/worker/memories", body)),
      );
      for (const reply of replies) expect(reply.status, JSON.stringify(reply.body)).toBe(201);
      const ids = new Set(replies.flatMap((reply) => reply.body.ids as number[]));
      expect(ids.size).toBe(1);
      const listed = await readerAdmin.get(`/api/v1/memories?agentId=${alice.agent.id}&q=gannet`);
      expect(listed.body.memories.filter((m: { content: string }) => m.content === content)).toHaveLength(1);
    });

    it("drops a memory deleted through one instance from the other's keyword and vector search", async () => {
      const marker = `tidewrack${Date.now().toString(36)}`;
      const stored = await alice.writer.post("/api/worker/memories", {
        name: `Rotate ${marker} keys`,
        content: `Rotate the ${marker} signing keys every quarter and keep the old key for a week.`,
        scope: "swarm",
      });
      expect(stored.status).toBe(201);
      const [id] = stored.body.ids as number[];
      await waitForEmbeddings(writerAdmin, [id!]);
      const query = `${marker} signing keys rotate quarter`;
      // The reader holds it (keyword and vector) ...
      expect((await search(readerAdmin, "/api/v1/memories/search", query, "vector")).results.map((hit) => hit.id)).toContain(id);
      expect((await search(readerAdmin, "/api/v1/memories/search", query, "keyword")).results.map((hit) => hit.id)).toContain(id);
      // ... until the writer deletes it.
      expect((await writerAdmin.delete(`/api/v1/memories/${id}`)).status).toBe(204);
      for (const mode of ["vector", "keyword", "hybrid"]) {
        const after = await search(readerAdmin, "/api/v1/memories/search", query, mode);
        expect(after.results.map((hit) => hit.id)).not.toContain(id);
      }
      expect((await readerAdmin.get(`/api/v1/memories/${id}`)).status).toBe(404);
    });
  });
}

instancesSuite(
  `the embedded default, ${twoInstances ? "two instances on one PostgreSQL database" : "one instance on SQLite"}`,
  () => embeddedPair,
);
instancesSuite(
  `a provider's background embeddings, ${twoInstances ? "two instances on one PostgreSQL database" : "one instance on SQLite"}`,
  () => providerPair,
);

describe(`writes from outside the instance, ${twoInstances ? "PostgreSQL" : "SQLite"}`, () => {
  const ids = async (api: Api, query: string, mode: string) => {
    const reply = await api.post("/api/v1/memories/search", { query, limit: 20, mode });
    expect(reply.status).toBe(200);
    expect(reply.body.mode).toBe(mode);
    return (reply.body.results as Hit[]).map((hit) => hit.id);
  };

  if (twoInstances) {
    it("finds a memory whose transaction commits after a later memory was already seen by the reader", async () => {
      const { writer, reader } = providerPair;
      const writerAdmin = apiClient(writer.baseUrl, writer.adminToken);
      const readerAdmin = apiClient(reader.baseUrl, reader.adminToken);
      const marker = `slowcommit${Date.now().toString(36)}`;
      const content = `The ${marker} nightly export waits for the warehouse lock before it copies the ledger.`;
      // A write whose transaction stays open: its change is numbered now, committed later.
      const held = new pg.Client({ connectionString: writer.databaseUrl });
      await held.connect();
      try {
        await held.query("BEGIN");
        const inserted = await held.query<{ id: number }>(
          `INSERT INTO "Memory" ("scope", "name", "content", "source", "contentHash", "embeddingStatus", "embedding", "embeddingModel",
             "embeddingDims", "embeddingAttempts", "createdAt", "updatedAt")
           VALUES ('swarm', $1, $2, 'manual', $3, 'done', $4, 'text-embedding-3-small', 256, 1, now(), now()) RETURNING "id"`,
          [
            `Nightly ${marker} export`,
            content,
            createHash("sha256").update(content).digest("hex"),
            Buffer.from(fakeEmbedding(`Nightly ${marker} export\n\n${content}`, 256).buffer),
          ],
        );
        const heldId = inserted.rows[0]!.id;
        // A later write commits, and the reader catches up past the open one.
        const later = await writerAdmin.post("/api/v1/memories", {
          name: `Later ${marker}`,
          content: `A later ${marker} note.`,
          scope: "swarm",
        });
        expect(later.status).toBe(201);
        await waitForEmbeddings(writerAdmin, later.body.ids);
        expect(await ids(readerAdmin, `later ${marker} note`, "vector")).toContain(later.body.ids[0]);
        expect(await ids(readerAdmin, `later ${marker} note`, "keyword")).toContain(later.body.ids[0]);
        expect(await ids(readerAdmin, `${marker} nightly export warehouse`, "vector")).not.toContain(heldId);
        expect(await ids(readerAdmin, `${marker} nightly export warehouse`, "keyword")).not.toContain(heldId);
        await held.query("COMMIT");
        // Committed now: the reader finds it by meaning too (the gap it skipped is asked for again).
        expect(await ids(readerAdmin, `${marker} nightly export warehouse lock`, "vector")).toContain(heldId);
        expect(await ids(readerAdmin, `${marker} nightly export warehouse lock`, "keyword")).toContain(heldId);
      } finally {
        await held.query("ROLLBACK").catch(() => {});
        await held.end();
      }
    });
  } else {
    it("finds a memory another process wrote into the database file: by keyword at once, by meaning once embedded", async () => {
      const { writer } = providerPair;
      const admin = apiClient(writer.baseUrl, writer.adminToken);
      const marker = `filewrite${Date.now().toString(36)}`;
      const content = `The ${marker} nightly export waits for the warehouse lock before it copies the ledger.`;
      const db = openTestDb(writer.databaseUrl);
      let id: number;
      try {
        await db.run(
          `INSERT INTO "Memory" ("scope", "name", "content", "source", "contentHash", "embeddingStatus", "embeddingAttempts", "createdAt", "updatedAt")
           VALUES ('swarm', ?, ?, 'manual', ?, 'pending', 0, ?, ?)`,
          [`Nightly ${marker} export`, content, createHash("sha256").update(content).digest("hex"), new Date(), new Date()],
        );
        id = (await db.get<{ id: number }>('SELECT "id" FROM "Memory" WHERE "name" = ?', [`Nightly ${marker} export`]))!.id;
      } finally {
        await db.close();
      }
      expect(await ids(admin, `${marker} nightly export warehouse lock`, "keyword")).toContain(id);
      // The instance's embedder picks pending rows up (its retry loop), and its vector index gets them.
      await waitForEmbeddings(admin, [id], 30_000);
      expect(await ids(admin, `${marker} nightly export warehouse lock`, "vector")).toContain(id);
    });
  }
});

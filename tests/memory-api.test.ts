// The memory API over HTTP, twice: on the shared server with no provider (the
// embedded default: local word-vector embeddings, hybrid search) and on a second
// app wired to a fake OpenAI-compatible server (the provider's embeddings).
// A provider's embeddings are computed in the background; the embedded default's
// as each memory is stored, so it is searchable by meaning once the write is answered.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Api, agentWithToken, apiClient, waitFor, waitForEmbeddings } from "./fixtures/memory/http";
import { server } from "./support/client";
import { type FakeOpenAI, startFakeOpenAI } from "./support/fake-openai";
import { openTestDb } from "./support/test-db";
import { startTestServer, type TestServer } from "./support/test-server";

type Setup = { baseUrl: string; adminToken: string; databaseUrl: string; provider: boolean };

function memorySuite(label: string, setup: () => Setup, fake: () => FakeOpenAI | null) {
  describe(label, () => {
    let admin: Api;
    let alice: { agent: { id: string }; api: Api };
    let bob: { agent: { id: string }; api: Api };
    let lead: { agent: { id: string }; api: Api };
    let viewerless: Api;

    async function store(api: Api, body: Record<string, unknown>) {
      const reply = await api.post("/api/worker/memories", body);
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
      await waitForEmbeddings(admin, reply.body.ids);
      return reply.body.ids as number[];
    }

    beforeAll(async () => {
      const { baseUrl, adminToken, databaseUrl } = setup();
      admin = apiClient(baseUrl, adminToken);
      viewerless = apiClient(baseUrl);
      const a = await agentWithToken(admin, {}, databaseUrl);
      const b = await agentWithToken(admin, {}, databaseUrl);
      const l = await agentWithToken(admin, { role: "lead" }, databaseUrl);
      alice = { agent: a.agent, api: apiClient(baseUrl, a.token) };
      bob = { agent: b.agent, api: apiClient(baseUrl, b.token) };
      lead = { agent: l.agent, api: apiClient(baseUrl, l.token) };
    });

    it("stores a worker memory (201 {ids}) and finds it again with a 0..1 score", async () => {
      const ids = await store(alice.api, {
        name: "Staging deploys need the VPN",
        content: "Deploying to staging fails with ECONNREFUSED unless the wireguard VPN is up. Run `wg-quick up staging` first.",
      });
      expect(ids).toHaveLength(1);
      const reply = await alice.api.post("/api/worker/memories/search", { query: "staging deploy wireguard VPN" });
      expect(reply.status).toBe(200);
      expect(reply.body.mode).toBe("hybrid");
      const hit = reply.body.results.find((result: { id: number }) => result.id === ids[0]);
      expect(hit).toMatchObject({ name: "Staging deploys need the VPN", scope: "agent", source: "manual", agentId: alice.agent.id });
      expect(hit.score).toBeGreaterThan(0.4);
      expect(hit.score).toBeLessThanOrEqual(1);
      for (const result of reply.body.results) expect(result.score).toBeGreaterThanOrEqual(0);
    });

    it("keeps agent memories private: another worker sees only the swarm's; a lead and operators see all", async () => {
      const marker = `zephyrine${Date.now()}`;
      const [mine] = await store(alice.api, { name: "private", content: `Alice's private note about ${marker} tuning` });
      const [shared] = await store(alice.api, { name: "shared", content: `Swarm note about ${marker} tuning`, scope: "swarm" });
      const ids = async (api: Api, path = "/api/worker/memories/search") =>
        ((await api.post(path, { query: `${marker} tuning`, limit: 50 })).body.results as { id: number }[]).map((r) => r.id);
      expect(await ids(alice.api)).toEqual(expect.arrayContaining([mine, shared]));
      const bobSees = await ids(bob.api);
      expect(bobSees).toContain(shared);
      expect(bobSees).not.toContain(mine);
      expect(await ids(bob.api)).not.toContain(mine);
      expect(await ids(lead.api)).toEqual(expect.arrayContaining([mine, shared]));
      expect(await ids(admin, "/api/v1/memories/search")).toEqual(expect.arrayContaining([mine, shared]));
      const agentOnly = await bob.api.post("/api/worker/memories/search", { query: `${marker}`, scope: "agent" });
      expect(agentOnly.body.results).toEqual([]);
    });

    it("chunks long documents, dedupes exact repeats, and re-indexes a file in place", async () => {
      const section = (n: number) => `## Part ${n}\n\n${`Runbook line ${n} about the payment reconciliation cron. `.repeat(45)}`;
      const doc = [1, 2, 3, 4].map(section).join("\n\n");
      const ids = await store(alice.api, { name: "Runbook", content: doc });
      expect(ids.length).toBeGreaterThan(2);
      const again = await alice.api.post("/api/worker/memories", { name: "Runbook", content: doc });
      expect(again.body.ids).toEqual(ids);
      const unspaced = await alice.api.post("/api/worker/memories", { name: "blob", content: "Q".repeat(30_000) });
      expect(unspaced.status).toBe(201);
      expect(unspaced.body.ids.length).toBeGreaterThan(14);

      const first = await store(alice.api, {
        name: "notes.md",
        content: "Old content about gRPC",
        source: "file_index",
        path: "memory/notes.md",
      });
      const second = await store(alice.api, {
        name: "notes.md",
        content: "New content about GraphQL",
        source: "file_index",
        path: "memory/notes.md",
      });
      expect((await admin.get(`/api/v1/memories/${first[0]}`)).status).toBe(404);
      expect((await admin.get(`/api/v1/memories/${second[0]}`)).body.memory).toMatchObject({ source: "file_index", scope: "agent" });
      const [sharedFile] = await store(alice.api, {
        name: "team.md",
        content: "Team wide fact",
        source: "file_index",
        path: "memory/shared/team.md",
      });
      expect((await admin.get(`/api/v1/memories/${sharedFile}`)).body.memory.scope).toBe("swarm");
      const traversal = await alice.api.post("/api/worker/memories", {
        name: "x",
        content: "x",
        source: "file_index",
        path: "../../etc/passwd",
      });
      expect(traversal.status).toBe(400);
    });

    it("takes a task id only of the worker's own agent: another agent's task is 403 and nothing is stored", async () => {
      const own = (await admin.post("/api/v1/tasks", { title: "alice's task", agentId: alice.agent.id })).body.task.id;
      const foreign = (await admin.post("/api/v1/tasks", { title: "bob's task", agentId: bob.agent.id })).body.task.id;
      const forged = await alice.api.post("/api/worker/memories", { name: "forged", content: "planted on bob's task", taskId: foreign });
      expect(forged.status).toBe(403);
      expect(forged.body.error.code).toBe("forbidden");
      const unknown = await alice.api.post("/api/worker/memories", { name: "forged", content: "planted nowhere", taskId: "no-such-task" });
      expect(unknown.status).toBe(403);
      const stored = await admin.get(`/api/v1/memories?agentId=${alice.agent.id}&limit=200`);
      expect(stored.status).toBe(200);
      expect(stored.body.memories.filter((m: { name: string }) => m.name === "forged")).toEqual([]);
      const [kept] = await store(alice.api, { name: "mine", content: "a lesson from my own task", taskId: own });
      expect((await admin.get(`/api/v1/memories/${kept}`)).body.memory).toMatchObject({ sourceTaskId: own });
    });

    it("takes an operator's task id only of a task that exists: an unknown one is 404 and nothing of the batch is stored", async () => {
      const task = (await admin.post("/api/v1/tasks", { title: "a task to learn from" })).body.task.id;
      const name = `dangling ${Date.now()}`;
      const unknown = await admin.post("/api/v1/memories", { name, content: "a note on a task that never was", taskId: "no-such-task" });
      expect(unknown.status).toBe(404);
      expect(unknown.body.error.code).toBe("not_found");
      const batch = await admin.post("/api/v1/memories", {
        items: [
          { name, content: "a note on a real task", taskId: task },
          { name, content: "a note on a task that never was", taskId: "no-such-task" },
        ],
      });
      expect(batch.status).toBe(404);
      expect(batch.body.error.details).toMatchObject({ index: 1 });
      const stored = await admin.get(`/api/v1/memories?q=${encodeURIComponent(name)}&limit=200`);
      expect(stored.body.memories.filter((m: { name: string }) => m.name === name)).toEqual([]);
      const kept = await admin.post("/api/v1/memories", { name, content: "a note on a real task", taskId: task });
      expect(kept.status).toBe(201);
      expect((await admin.get(`/api/v1/memories/${kept.body.ids[0]}`)).body.memory).toMatchObject({ sourceTaskId: task });
    });

    it("turns any user text into a safe query and rejects bad input with clear errors, writing nothing", async () => {
      for (const query of ['"unbalanced AND (', "NEAR(a b", "name:* OR ^", "*** ((("]) {
        const reply = await alice.api.post("/api/worker/memories/search", { query });
        expect(reply.status, query).toBe(200);
        expect(Array.isArray(reply.body.results)).toBe(true);
      }
      const before = (await admin.get("/api/v1/memories?limit=1")).body.memories[0]?.id;
      expect((await alice.api.post("/api/worker/memories/search", { query: "" })).status).toBe(400);
      expect((await alice.api.post("/api/worker/memories/search", { query: "x", limit: 500 })).status).toBe(400);
      expect((await alice.api.post("/api/worker/memories", { name: "n", content: "c", scope: "galaxy" })).status).toBe(400);
      expect((await alice.api.post("/api/worker/memories", { name: "n", content: "c", agentId: bob.agent.id })).status).toBe(400);
      expect((await alice.api.post("/api/worker/memories", undefined, "{not json")).status).toBe(400);
      const big = await alice.api.post("/api/worker/memories", { name: "n", content: "y".repeat(300 * 1024) });
      expect(big.status).toBe(400);
      expect(big.body.error.code).toBe("validation_failed");
      expect((await viewerless.post("/api/worker/memories", { name: "n", content: "c" })).status).toBe(401);
      expect((await viewerless.get("/api/v1/memories")).status).toBe(401);
      expect((await admin.get("/api/v1/memories?limit=1")).body.memories[0]?.id).toBe(before);
      expect((await admin.get("/api/v1/memories/abc")).status).toBe(404);
    });

    it("lets only a lead inject a learning, into the target's memory and, as its profile allows, its CLAUDE.md", async () => {
      const body = {
        targetAgentId: bob.agent.id,
        category: "mistake-pattern",
        learning: "Always run the linter before pushing the quokka branch.",
      };
      const refused = await alice.api.post("/api/worker/learnings", body);
      expect(refused.status).toBe(403);
      const missing = await lead.api.post("/api/worker/learnings", { ...body, targetAgentId: "nope_not_an_agent" });
      expect(missing.status).toBe(404);
      // The CLAUDE.md note follows the target's profile (reference 002): queued for review on standard ...
      const queued = await lead.api.post("/api/worker/learnings", { ...body, targetAgentId: alice.agent.id, addToClaudeMd: true });
      expect(queued.status).toBe(201);
      expect(queued.body.claudeMd).toMatchObject({ status: "pending", versionId: null });
      expect(typeof queued.body.claudeMd.proposalId).toBe("string");
      expect(queued.body.claudeVersionId).toBeNull();
      // ... and applied on power, where an agent-proposed change is a write.
      const { baseUrl, adminToken } = setup();
      const toPower = await fetch(`${baseUrl}/api/v1/agents/${bob.agent.id}`, {
        method: "PATCH",
        headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
        body: JSON.stringify({ securityProfile: "power" }),
      });
      expect(toPower.status).toBe(200);
      const reply = await lead.api.post("/api/worker/learnings", { ...body, addToClaudeMd: true });
      expect(reply.status).toBe(201);
      expect(reply.body.claudeMd.status).toBe("applied");
      expect(reply.body.memoryIds).toHaveLength(1);
      expect(typeof reply.body.claudeVersionId).toBe("string");
      await waitForEmbeddings(admin, reply.body.memoryIds);

      const bobFinds = await bob.api.post("/api/worker/memories/search", { query: "lint before pushing quokka" });
      expect(bobFinds.body.results[0]).toMatchObject({ id: reply.body.memoryIds[0], source: "lead_feedback", scope: "agent" });
      const aliceFinds = await alice.api.post("/api/worker/memories/search", { query: "lint before pushing quokka" });
      expect(aliceFinds.body.results.map((r: { id: number }) => r.id)).not.toContain(reply.body.memoryIds[0]);

      const db = openTestDb(setup().databaseUrl);
      try {
        const version = await db.get<{ content: string; authorType: string }>(
          'SELECT "content", "authorType" FROM "IdentityVersion" WHERE "id" = ?',
          [reply.body.claudeVersionId],
        );
        expect(version?.authorType).toBe("lead");
        expect(version?.content).toContain("## Feedback from Lead");
        expect(version?.content).toContain("- (mistake-pattern) Always run the linter before pushing the quokka branch.");
        const audit = await db.all<{ action: string }>('SELECT "action" FROM "AuditEvent" WHERE "agentId" = ? ORDER BY "id" DESC LIMIT 3', [
          bob.agent.id,
        ]);
        expect(audit.map((row) => row.action)).toEqual(expect.arrayContaining(["identity.written", "memory.created"]));
      } finally {
        await db.close();
      }
    });

    it("lists with filters and paging, reads one, deletes one (audited), and reports retrieval health", async () => {
      const [id] = await store(alice.api, { name: "to delete", content: "Temporary note on flamingo caching", scope: "swarm" });
      const listed = await admin.get(`/api/v1/memories?agentId=${alice.agent.id}&scope=swarm&limit=1`);
      expect(listed.status).toBe(200);
      expect(listed.body.memories).toHaveLength(1);
      expect(listed.body.memories[0]).toMatchObject({ agentId: alice.agent.id, scope: "swarm" });
      const next = await admin.get(`/api/v1/memories?agentId=${alice.agent.id}&scope=swarm&limit=1&cursor=${listed.body.nextCursor}`);
      expect(next.body.memories[0].id).toBeLessThan(listed.body.memories[0].id);
      const byQuery = await admin.get("/api/v1/memories?q=flamingo");
      expect(byQuery.body.memories.map((m: { id: number }) => m.id)).toContain(id);
      expect((await admin.get("/api/v1/memories?source=bogus")).status).toBe(400);

      const read = await admin.get(`/api/v1/memories/${id}`);
      expect(read.body.memory).toMatchObject({
        id,
        content: "Temporary note on flamingo caching",
        embeddingStatus: "done",
      });
      expect((await admin.delete(`/api/v1/memories/${id}`)).status).toBe(204);
      expect((await admin.get(`/api/v1/memories/${id}`)).status).toBe(404);
      expect((await admin.delete(`/api/v1/memories/${id}`)).status).toBe(404);
      const found = await admin.post("/api/v1/memories/search", { query: "flamingo caching" });
      expect(found.body.results.map((r: { id: number }) => r.id)).not.toContain(id);

      const health = await admin.get("/api/v1/memories/health?days=7");
      expect(health.status).toBe(200);
      expect(health.body.perDay).toHaveLength(7);
      const today = health.body.perDay.at(-1);
      expect(today.searches).toBeGreaterThan(3);
      expect(today.withEmbeddings).toBeGreaterThan(0);
      expect(health.body.scoreBuckets).toHaveLength(10);
      expect(health.body.provider.configured).toBe(setup().provider);
      // Which embedder answers: the provider's model, or the built-in word vectors when there is none.
      expect(health.body.embedder).toEqual(
        setup().provider
          ? { kind: "provider", model: "text-embedding-3-small" }
          : { kind: "local", model: expect.stringMatching(/^local:/) },
      );
    });

    it("finds memories by their words the moment they are written, and none deleted before it could index them", async () => {
      // The keyword filter's FTS5 index is filled off the write path (lib/memory/fts-backlog.ts).
      const word = `quokka${Date.now().toString(36)}`;
      const written = await alice.api.post("/api/worker/memories", { name: `gone ${word}`, content: `a ${word} lesson`, scope: "swarm" });
      expect(written.status).toBe(201);
      const [gone] = written.body.ids as number[];
      expect((await admin.delete(`/api/v1/memories/${gone}`)).status).toBe(204);
      const burst = await Promise.all(
        Array.from({ length: 24 }, (_, i) =>
          (i % 2 ? alice : bob).api.post("/api/worker/memories", {
            name: `kept ${i}`,
            content: `the ${word} lesson number ${i}`,
            scope: "swarm",
          }),
        ),
      );
      expect(burst.map((reply) => reply.status)).toEqual(burst.map(() => 201));
      const kept = burst.flatMap((reply) => reply.body.ids as number[]).sort((a, b) => b - a);
      const byWord = await admin.get(`/api/v1/memories?q=${word}&limit=100`);
      expect(byWord.status).toBe(200);
      expect(byWord.body.memories.map((m: { id: number }) => m.id)).toEqual(kept);
    });

    if (label.includes("fake")) {
      it("scores a memory found by its words alone by meaning too: hybrid results all carry a vector score", async () => {
        // 600 memories nearer the query by meaning (the provider's synonyms of all three of
        // its words, no word in common) than the long one that holds its words: that one is
        // found by its words, and is no vector candidate (not among the best 300 estimates).
        const near = Array.from({ length: 600 }, (_, i) => ({
          name: `container workflow ${i}`,
          content: `Container workflow memoize ${i}.`,
          scope: "swarm",
        }));
        const ids: number[] = [];
        for (const items of [near.slice(0, 300), near.slice(300)]) {
          const reply = await admin.post("/api/v1/memories", { items });
          expect(reply.status, JSON.stringify(reply.body)).toBe(201);
          ids.push(...reply.body.ids);
        }
        const [long] = await store(alice.api, {
          name: "Birds on the roof",
          content:
            "The docker pipeline cache sat idle while an ibis nested above the loading dock in spring; facilities moved the nest, " +
            "repainted gutters, checked ladders, cleaned windows, resurfaced the parking lot, trimmed hedges, replaced bulbs, " +
            "oiled hinges, swept stairwells, fixed a leaking faucet, mended fences, planted tulips, raked gravel paths, " +
            "polished brass handrails, washed awnings, restocked vending machines and recalibrated thermostats before summer arrived.",
          scope: "swarm",
        });
        await waitForEmbeddings(admin, ids, 60_000);
        const query = "docker pipeline cache";
        const byMeaning = await admin.post("/api/v1/memories/search", { query, mode: "vector", limit: 50 });
        expect(byMeaning.body.mode).toBe("vector");
        expect(byMeaning.body.results).toHaveLength(50);
        expect(byMeaning.body.results.map((r: { id: number }) => r.id)).not.toContain(long);
        const hybrid = await admin.post("/api/v1/memories/search", { query, mode: "hybrid", limit: 50 });
        expect(hybrid.body.mode).toBe("hybrid");
        const found = hybrid.body.results.find((r: { id: number }) => r.id === long);
        expect(found?.keywordScore).toBeGreaterThan(0);
        for (const result of hybrid.body.results) expect(typeof result.vectorScore, JSON.stringify(result)).toBe("number");
        expect(found.vectorScore).toBeGreaterThan(0);
      }, 120_000);
    }

    if (!label.includes("fake")) {
      it("embeds a memory with the embedded default as it stores it: searchable by meaning once the 201 is back", async () => {
        // An agent of its own, so the ranking is among its memories only, not every test's on the shared server.
        const { agent, token } = await agentWithToken(admin, {}, setup().databaseUrl);
        const carol = apiClient(setup().baseUrl, token);
        const reply = await carol.post("/api/worker/memories", {
          name: "Screenshot diffs on CI",
          content:
            "Visual regression snapshots differ between the CI runner and laptops because fonts render differently; pin the font package.",
        });
        expect(reply.status).toBe(201);
        const id = reply.body.ids[0];
        // No waiting for a background embedder: the row is embedded already.
        const memory = (await admin.get(`/api/v1/memories/${id}`)).body.memory;
        expect(memory.embeddingStatus).toBe("done");
        const other = await carol.post("/api/worker/memories", {
          name: "Migrations lock the users table",
          content: "Adding a column with a default rewrote the users table under a lock; run such migrations off-peak with a lock timeout.",
        });
        expect(other.status).toBe(201);
        const search = await admin.post("/api/v1/memories/search", {
          query: "images in the interface look different on continuous integration",
          mode: "vector",
          scope: "agent",
          agentId: agent.id,
        });
        expect(search.status).toBe(200);
        expect(search.body.mode).toBe("vector");
        expect(search.body.results[0]?.id, JSON.stringify(search.body.results)).toBe(id);
      });
    }

    if (label.includes("fake")) {
      it("records embedding failures on the row, falls back to keywords with a reason, and retries", async () => {
        const provider = fake()!;
        provider.mode.failEmbeddings = true;
        try {
          const reply = await alice.api.post("/api/worker/memories", {
            name: "outage",
            content: "Notes written while the provider was down: pelican",
          });
          expect(reply.status).toBe(201);
          const failed = await waitFor("a recorded failure", async () => {
            const memory = (await admin.get(`/api/v1/memories/${reply.body.ids[0]}`)).body.memory;
            return memory.embeddingStatus === "failed" ? memory : null;
          });
          expect(failed.embeddingError).toMatch(/500|down/);
          const search = await admin.post("/api/v1/memories/search", { query: "pelican provider down" });
          expect(search.body.mode).toBe("keyword");
          expect(search.body.fallbackReason).toMatch(/^embedding_failed/);
          expect(search.body.results[0].id).toBe(reply.body.ids[0]);
          provider.mode.failEmbeddings = false;
          await waitForEmbeddings(admin, reply.body.ids, 30_000);
        } finally {
          provider.mode.failEmbeddings = false;
        }
        const health = await admin.get("/api/v1/memories/health");
        expect(health.body.fallbackReasons.some((r: { reason: string }) => r.reason.startsWith("embedding_failed"))).toBe(true);
      });

      it("gathers memories written one per request, as agents write them, into batches: one provider call per 20 ms at most", async () => {
        const provider = fake()!;
        const before = provider.calls.embeddings;
        const marker = `quokka${Date.now()}`;
        const topics = ["flaky retries", "lockfile drift", "port clashes", "slow fixtures", "stale caches"];
        const ids: number[] = [];
        // 4 agents' loops, 50 memories each, each write answered before the next is sent.
        const started = performance.now();
        await Promise.all(
          [0, 1, 2, 3].map(async (writer) => {
            for (let i = 0; i < 50; i++) {
              const reply = await alice.api.post("/api/worker/memories", {
                name: `${marker} ${writer}-${i}`,
                content: `Run ${writer}-${i} of the ${marker} suite: ${topics[(writer + i) % topics.length]} cost ${i * 7 + writer} seconds.`,
              });
              expect(reply.status, JSON.stringify(reply.body)).toBe(201);
              ids.push(...reply.body.ids);
            }
          }),
        );
        const writing = performance.now() - started;
        await waitForEmbeddings(admin, ids, 30_000);
        const calls = provider.calls.embeddings - before;
        expect(calls).toBeGreaterThan(0);
        // While writes trickle in, a batch goes out at most every 20 ms; the first goes at
        // once, a full one (64) is followed at once, and the last ones go after the
        // writes (a provider call each would be ~200).
        const most = Math.ceil(writing / 20) + Math.ceil(ids.length / 64) + 2;
        expect(calls, `${calls} provider calls for ${ids.length} memories written in ${Math.round(writing)} ms`).toBeLessThanOrEqual(most);
        // However slow the machine (and so however long the writing took), four writers give every
        // batch more than one memory on average: far fewer calls than memories.
        expect(calls, `${calls} provider calls for ${ids.length} memories`).toBeLessThan(ids.length / 2);
        const search = await admin.post("/api/v1/memories/search", { query: `${marker} lockfile drift`, mode: "vector" });
        expect(search.body.mode).toBe("vector");
        expect(search.body.results.length).toBeGreaterThan(0);
      });

      it("reads the provider's embeddings whether it answers base64 (as asked) or float arrays", async () => {
        const provider = fake()!;
        const calls = provider.calls.embeddings;
        const [asked] = await store(alice.api, { name: "base64 answer", content: "The kiwi cache warms up in ninety seconds." });
        provider.mode.floatsOnly = true;
        try {
          const [floats] = await store(alice.api, { name: "float answer", content: "The walrus queue drains every night at two." });
          expect(provider.calls.embeddings).toBeGreaterThan(calls);
          for (const [id, query] of [
            [asked, "kiwi cache warms up"],
            [floats, "walrus queue drains nightly"],
          ] as const) {
            const search = await admin.post("/api/v1/memories/search", { query, mode: "vector" });
            expect(search.body.mode).toBe("vector");
            expect(search.body.results[0].id).toBe(id);
          }
        } finally {
          provider.mode.floatsOnly = false;
        }
      });

      it("flags or merges near-duplicates in the hygiene pass", async () => {
        const text = "When the jest suite hangs on CI, run it with --runInBand and raise the heap limit to 4 GB.";
        const [a] = await store(alice.api, { name: "jest hangs", content: text });
        const [b] = await store(alice.api, { name: "jest hangs", content: `${text} (again)` });
        expect(b).not.toBe(a);
        const run = await admin.post("/api/v1/memories/hygiene");
        expect(run.status).toBe(200);
        const memory = (await admin.get(`/api/v1/memories/${b}`)).body.memory;
        expect(memory.duplicateOfId).toBe(a);
        const results = (await alice.api.post("/api/worker/memories/search", { query: "jest suite hangs on CI" })).body.results;
        expect(results.filter((r: { id: number }) => r.id === a || r.id === b)).toHaveLength(memory.archivedAt ? 1 : 2);
      });
    }
  });
}

let fake: FakeOpenAI | null = null;
let second: TestServer | null = null;

beforeAll(async () => {
  fake = await startFakeOpenAI();
  second = await startTestServer({
    env: {
      OPENAI_BASE_URL: fake.url,
      OPENAI_API_KEY: "sk-fake",
      EMBEDDING_DIMENSIONS: "256",
      SWARMDECK_EMBED_BACKOFF_MS: "200",
      SUMMARY_MODEL: "fake-chat",
    },
  });
}, 180_000);

afterAll(async () => {
  await second?.stop();
  await fake?.stop();
});

memorySuite(
  "memory without a provider (keyword search)",
  () => ({ ...server(), provider: false }),
  () => null,
);
memorySuite(
  "memory with a fake OpenAI-compatible provider (hybrid search)",
  () => ({ baseUrl: second!.baseUrl, adminToken: second!.adminToken, databaseUrl: second!.databaseUrl, provider: true }),
  () => fake,
);

// Memories stored before an embedder was there are embedded once one is: a restart
// that brings the embedded default (or a new provider) queues every memory whose
// vector came from no embedder or another one, all of them, in transactions of a
// few thousand ids (lib/memory/embedder.ts, requeueForeign; the PostgreSQL twin in
// embedder.pg.ts), so one far past the first few thousand ids must be embedded too.

import { createHash } from "node:crypto";
import { rmSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { agentWithToken, apiClient, waitFor } from "./fixtures/memory/http";
import { openTestDb } from "./support/test-db";
import { startTestServer, type TestServer } from "./support/test-server";

const servers: TestServer[] = [];

afterAll(async () => {
  for (const server of servers.reverse()) await server.stop();
  if (servers[0]?.store === "sqlite") rmSync(servers[0].dataDir, { recursive: true, force: true });
});

describe("memories stored with no embedder", () => {
  it("are all embedded after a restart with the embedded default, ids far apart included", async () => {
    const before = await startTestServer({ env: { SWARMDECK_LOCAL_EMBEDDER: "off" }, keepData: true });
    servers.push(before);
    const admin = apiClient(before.baseUrl, before.adminToken);
    const { agent, token } = await agentWithToken(admin, {}, before.databaseUrl);
    const worker = apiClient(before.baseUrl, token);
    const ids: number[] = [];
    for (const memory of [
      { name: "Flaky login test", content: "The login end-to-end test fails when the session cookie expires mid-run; refresh it first." },
      { name: "Release notes", content: "Release notes are generated from merged pull request titles; keep titles short." },
    ]) {
      const stored = await worker.post("/api/worker/memories", memory);
      expect(stored.status, JSON.stringify(stored.body)).toBe(201);
      ids.push(...(stored.body.ids as number[]));
    }

    // One more, stored as the keyword-only server stores them, at an id far past the first chunks.
    const db = openTestDb(before.databaseUrl);
    const far = 23_456;
    const content = "Rotate the staging database password through the vault, never by hand.";
    try {
      await db.run(
        `INSERT INTO "Memory" ("id", "scope", "agentId", "name", "content", "source", "contentHash", "embeddingStatus", "createdAt", "updatedAt")
         VALUES (?, 'agent', ?, ?, ?, 'manual', ?, 'none', ?, ?)`,
        [far, agent.id, "Staging password rotation", content, createHash("sha256").update(content).digest("hex"), new Date(), new Date()],
      );
      const statuses = await db.all<{ embeddingStatus: string }>(`SELECT "embeddingStatus" FROM "Memory" WHERE "id" IN (?, ?, ?)`, [
        ...ids,
        far,
      ]);
      expect(statuses.map((row) => row.embeddingStatus)).toEqual(["none", "none", "none"]);
    } finally {
      await db.close();
    }
    await before.stop();

    const after = await startTestServer({ dataDir: before.dataDir, databaseUrl: before.databaseUrl, keepData: true });
    servers.push(after);
    const check = openTestDb(after.databaseUrl);
    try {
      const rows = await waitFor("every memory embedded by the embedded default", async () => {
        const found = await check.all<{ id: number; embeddingStatus: string; embeddingModel: string | null }>(
          `SELECT "id", "embeddingStatus", "embeddingModel" FROM "Memory" WHERE "id" IN (?, ?, ?) ORDER BY "id"`,
          [...ids, far],
        );
        return found.every((row) => row.embeddingStatus === "done") && found;
      });
      expect(rows.map((row) => row.id)).toEqual([...ids, far].sort((a, b) => a - b));
      for (const row of rows) expect(row.embeddingModel).toBeTruthy();
    } finally {
      await check.close();
    }
    // And the far one is found by meaning, in words it does not contain.
    const search = await apiClient(after.baseUrl, after.adminToken).post("/api/v1/memories/search", {
      query: "changing credentials for the test environment's database",
      mode: "vector",
    });
    expect(search.status, JSON.stringify(search.body)).toBe(200);
    expect(search.body.results.map((result: { id: number }) => result.id)).toContain(far);
  });
});

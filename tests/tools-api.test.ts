// Agent-authored tools over the real server: the worker stores tested tools as
// append-only versions; the profile and capabilities.yaml decide whether a change
// applies or waits for an operator; operators see, disable, delete and review them;
// refusals store nothing; every change is audited.
import { describe, expect, it } from "vitest";
import { agentWithWorker, auditActions, createTask, current, lastAudit, sql, userToken } from "./identity-helpers";
import { admin, client } from "./support/client";

function toolBody(name: string, overrides: Record<string, unknown> = {}) {
  return {
    name,
    description: `${name} does one thing`,
    source: `export default { name: "${name}" } // v`,
    compiledCode: "export const tool = {};",
    inputSchema: { type: "object", properties: { text: { type: "string" } } },
    timeoutMs: 2000,
    testInput: { text: "hi" },
    testOutput: { length: 2 },
    testDurationMs: 412,
    reason: "I count things often",
    ...overrides,
  };
}

const toolCount = async (agentId: string) =>
  Number(
    (
      await sql().get<{ n: number }>(
        'SELECT COUNT(*) AS "n" FROM "AgentToolVersion" v JOIN "AgentTool" t ON t."id" = v."toolId" WHERE t."agentId" = ?',
        [agentId],
      )
    )?.n,
  );

describe("writing tools as an agent", () => {
  it("stores a tested tool, registers it, and keeps each rewrite as a new version", async () => {
    const { agent, worker } = await agentWithWorker();
    const taskId = await createTask(agent.id);
    const first = await worker.post("/api/worker/tools", toolBody("count_words", { taskId }));
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ status: "applied", name: "count_words", version: 1, versionId: expect.any(String) });
    const second = await worker.post(
      "/api/worker/tools",
      toolBody("count_words", { source: "// v2", description: "counts words, better" }),
    );
    expect(second.status).toBe(201);
    expect(second.body.version).toBe(2);

    const listed = await worker.get("/api/worker/tools");
    expect(listed.status).toBe(200);
    expect(listed.body.policy).toMatchObject({ changes: "apply", network: true });
    expect(listed.body.tools).toEqual([
      expect.objectContaining({ name: "count_words", version: 2, description: "counts words, better", timeoutMs: 2000 }),
    ]);

    const detail = await admin().get(`/api/v1/agents/${agent.id}/tools/count_words`);
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({ name: "count_words", currentVersion: 2, enabled: true, deleted: false });
    expect(detail.body.versions.map((v: { version: number }) => v.version)).toEqual([2, 1]);
    expect(detail.body.versions[1]).toMatchObject({
      source: 'export default { name: "count_words" } // v',
      testInput: { text: "hi" },
      testOutput: { length: 2 },
      testDurationMs: 412,
      reason: "I count things often",
      taskId,
      author: { type: "worker" },
      status: "applied",
    });
    expect((await auditActions(agent.id)).filter((a) => a.startsWith("tool."))).toEqual(["tool.written", "tool.written"]);
  });

  it("refuses a built-in's name with a suggested one, and bad names, storing nothing", async () => {
    const { agent, worker } = await agentWithWorker();
    const taken = await worker.post("/api/worker/tools", toolBody("memory_search"));
    expect(taken.status).toBe(409);
    expect(taken.body.error).toMatchObject({ code: "conflict", details: { suggestion: "my_memory_search" } });
    expect(taken.body.error.message).toContain("my_memory_search");
    for (const name of ["Count", "count-words", "1count", ""]) {
      const bad = await worker.post("/api/worker/tools", toolBody(name));
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe("validation_failed");
    }
    const tooBig = await worker.post("/api/worker/tools", toolBody("big", { source: "x".repeat(70 * 1024) }));
    expect(tooBig.status).toBe(400);
    expect(await toolCount(agent.id)).toBe(0);
  });

  it("only names this agent's own tasks and sees only its own tools", async () => {
    const { worker } = await agentWithWorker();
    const other = await agentWithWorker();
    await other.worker.post("/api/worker/tools", toolBody("private_tool"));
    const foreign = await worker.post("/api/worker/tools", toolBody("mine", { taskId: await createTask(other.agent.id) }));
    expect(foreign.status).toBe(403);
    expect((await worker.get("/api/worker/tools")).body.tools).toEqual([]);
    expect((await worker.post("/api/worker/tools/private_tool/calls", { ok: true, durationMs: 3 })).status).toBe(404);
  });
});

describe("the profile and capabilities.yaml decide", () => {
  it("paranoid: a write is a proposal, registered only when an operator approves it; a rejected one never is", async () => {
    const { agent, worker } = await agentWithWorker({ securityProfile: "paranoid" });
    const proposed = await worker.post("/api/worker/tools", toolBody("fetch_page"));
    expect(proposed.status).toBe(202);
    expect(proposed.body).toMatchObject({ status: "pending", version: 1 });
    const listed = (await worker.get("/api/worker/tools")).body;
    expect(listed.tools).toEqual([]);
    expect(listed.policy).toMatchObject({ changes: "propose", network: false });

    const viewer = client((await userToken("viewer")).token);
    const path = `/api/v1/agents/${agent.id}/tools/fetch_page/versions/${proposed.body.versionId}`;
    expect((await viewer.post(`${path}/approve`, {})).status).toBe(403);
    expect((await admin().post(`${path}/maybe`, {})).status).toBe(404);
    const approved = await admin().post(`${path}/approve`, { note: "fine" });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ currentVersion: 1, pendingChanges: 0 });
    expect((await worker.get("/api/worker/tools")).body.tools.map((t: { name: string }) => t.name)).toEqual(["fetch_page"]);
    expect((await admin().post(`${path}/approve`, {})).status).toBe(409);

    const next = await worker.post("/api/worker/tools", toolBody("fetch_page", { source: "// worse" }));
    const rejected = await admin().post(`/api/v1/agents/${agent.id}/tools/fetch_page/versions/${next.body.versionId}/reject`, {
      note: "no",
    });
    expect(rejected.body).toMatchObject({ currentVersion: 1 });
    expect(rejected.body.versions[0]).toMatchObject({ status: "rejected", reviewNote: "no" });
    expect(await lastAudit(agent.id, "tool.change_rejected")).toMatchObject({ data: { name: "fetch_page", version: 2 } });
  });

  it("self_extension: off in capabilities.yaml refuses writes and deletes", async () => {
    const { agent, worker } = await agentWithWorker({ securityProfile: "power" });
    await worker.post("/api/worker/tools", toolBody("kept"));
    const caps = await current(agent.id, "capabilities");
    const saved = await admin().put(`/api/v1/agents/${agent.id}/identity/capabilities`, {
      content: `${caps.content}\nself_extension: off\n`,
      baseVersionId: caps.versionId,
      reason: "no more tools",
    });
    expect(saved.status).toBe(200);
    const write = await worker.post("/api/worker/tools", toolBody("another"));
    expect(write.status).toBe(403);
    expect(write.body.error).toMatchObject({ code: "profile_forbids", message: expect.stringContaining("self_extension: off") });
    expect((await worker.delete("/api/worker/tools/kept")).status).toBe(403);
    expect(await toolCount(agent.id)).toBe(1);
  });
});

describe("deleting, disabling, counting", () => {
  it("an agent's delete unregisters the tool and keeps its history; a later write revives it", async () => {
    const { agent, worker } = await agentWithWorker();
    await worker.post("/api/worker/tools", toolBody("scratch"));
    const deleted = await worker.delete("/api/worker/tools/scratch?reason=not%20useful");
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ status: "applied", version: 2 });
    expect((await worker.get("/api/worker/tools")).body.tools).toEqual([]);
    expect((await worker.delete("/api/worker/tools/scratch")).status).toBe(404);
    expect((await worker.delete("/api/worker/tools/tool_write")).status).toBe(403);
    const detail = (await admin().get(`/api/v1/agents/${agent.id}/tools/scratch`)).body;
    expect(detail).toMatchObject({ deleted: true });
    expect(detail.versions.map((v: { op: string }) => v.op)).toEqual(["delete", "write"]);
    const again = await worker.post("/api/worker/tools", toolBody("scratch"));
    expect(again.body.version).toBe(3);
    expect((await worker.get("/api/worker/tools")).body.tools).toHaveLength(1);
  });

  it("an operator's view of one tool holds its newest 200 versions, however many the agent wrote, and counts them all", async () => {
    const { agent, worker } = await agentWithWorker();
    const first = await worker.post("/api/worker/tools", toolBody("busy_tool"));
    expect(first.status).toBe(201);
    const tool = await sql().get<{ id: string }>('SELECT "id" FROM "AgentTool" WHERE "agentId" = ? AND "name" = ?', [
      agent.id,
      "busy_tool",
    ]);
    // Versions as an agent in a loop writes them (60 an hour pass the quota): 250 more, the last 5 waiting for review.
    for (let version = 2; version <= 251; version++) {
      await sql().run(
        `INSERT INTO "AgentToolVersion" ("id", "toolId", "version", "op", "status", "description", "source", "actorType", "createdAt")
         VALUES (?, ?, ?, 'write', ?, 'busy', ?, 'worker', ?)`,
        [`busy-${agent.id}-${version}`, tool?.id, version, version > 246 ? "pending" : "rejected", `// v${version}`, new Date()],
      );
    }
    // And one left waiting long ago, among the oldest.
    await sql().run(`UPDATE "AgentToolVersion" SET "status" = 'pending' WHERE "id" = ?`, [`busy-${agent.id}-3`]);
    const detail = await admin().get(`/api/v1/agents/${agent.id}/tools/busy_tool`);
    expect(detail.status).toBe(200);
    // The newest 200 (251 down to 52), then the version in force and the old one waiting, which the page shows and decides.
    expect(detail.body.versions.map((v: { version: number }) => v.version)).toEqual([
      ...Array.from({ length: 200 }, (_, i) => 251 - i),
      3,
      1,
    ]);
    expect(detail.body.versions.find((v: { id: string }) => v.id === first.body.versionId)).toMatchObject({ status: "applied" });
    expect(detail.body).toMatchObject({ currentVersion: 1, currentVersionId: first.body.versionId, pendingChanges: 6 });
  });

  it("operators disable, enable and delete; viewers only read; calls and failures are counted", async () => {
    const { agent, worker } = await agentWithWorker();
    await worker.post("/api/worker/tools", toolBody("ping"));
    expect((await worker.post("/api/worker/tools/ping/calls", { ok: true, durationMs: 40 })).status).toBe(204);
    await worker.post("/api/worker/tools/ping/calls", { ok: false, durationMs: 9, error: "threw: boom" });
    expect((await worker.post("/api/worker/tools/ping/calls", { ok: "yes" })).status).toBe(400);

    const viewer = client((await userToken("viewer")).token);
    const list = await viewer.get(`/api/v1/agents/${agent.id}/tools`);
    expect(list.status).toBe(200);
    expect(list.body.tools).toEqual([expect.objectContaining({ name: "ping", callCount: 2, failureCount: 1, lastError: "threw: boom" })]);
    expect((await viewer.patch(`/api/v1/agents/${agent.id}/tools/ping`, { enabled: false })).status).toBe(403);

    const off = await admin().patch(`/api/v1/agents/${agent.id}/tools/ping`, { enabled: false });
    expect(off.body).toMatchObject({ enabled: false });
    expect((await worker.get("/api/worker/tools")).body.tools).toEqual([]);
    await admin().patch(`/api/v1/agents/${agent.id}/tools/ping`, { enabled: true });
    expect((await worker.get("/api/worker/tools")).body.tools).toHaveLength(1);

    expect((await admin().delete(`/api/v1/agents/${agent.id}/tools/ping`)).status).toBe(204);
    expect((await worker.get("/api/worker/tools")).body.tools).toEqual([]);
    expect((await admin().get(`/api/v1/agents/${agent.id}/tools/nope`)).status).toBe(404);
    expect((await admin().get(`/api/v1/agents/${agent.id}/tools/Bad-Name`)).status).toBe(400);
    expect((await auditActions(agent.id)).filter((a) => a.startsWith("tool."))).toEqual([
      "tool.written",
      "tool.disabled",
      "tool.enabled",
      "tool.deleted",
    ]);
  });
});

// Operator identity API on the real server: reads, saves, stale bases, caps,
// roles, rollback, prompt preview and re-bootstrap. Every refusal leaves the
// file's versions and content as they were.
import { describe, expect, it } from "vitest";
import { IDENTITY_KINDS } from "@/lib/contracts/identity";
import { auditActions, current, lastAudit, userToken, versionCount } from "./identity-helpers";
import { admin, client, createAgent } from "./support/client";

const soulPath = (id: string) => `/api/v1/agents/${id}/identity/soul`;

describe("new agent identity", () => {
  it("gets every identity file from the templates as version 1 (no BOOTSTRAP.md: it starts from templates)", async () => {
    const agent = await createAgent();
    const reply = await admin().get(`/api/v1/agents/${agent.id}/identity`);
    expect(reply.status).toBe(200);
    expect(reply.body.files.map((file: { kind: string }) => file.kind)).toEqual([...IDENTITY_KINDS]);
    for (const file of reply.body.files) {
      expect(file.exists, file.kind).toBe(file.kind !== "BOOTSTRAP");
      expect(file.versionNumber, file.kind).toBe(file.kind === "BOOTSTRAP" ? null : 1);
    }
    const soul = reply.body.files.find((file: { kind: string }) => file.kind === "SOUL");
    expect(soul).toMatchObject({ path: "SOUL.md", language: "markdown", locked: false });
    expect(soul.content).toContain("## Growth Mindset");
    expect(reply.body.files.find((file: { kind: string }) => file.kind === "SETUP_SCRIPT")).toMatchObject({
      path: "start-up.sh",
      language: "shell",
    });
    expect(reply.body.files.find((file: { kind: string }) => file.kind === "CAPABILITIES")).toMatchObject({
      language: "yaml",
      locked: true,
    });
    const versions = await admin().get(`${soulPath(agent.id)}/versions`);
    expect(versions.body.versions[0]).toMatchObject({ number: 1, source: "template", authorType: "system", authorLabel: "Swarmdeck" });
    expect(await auditActions(agent.id)).toContain("identity.initialized");
  });
});

describe("operator PUT", () => {
  it("saves a new version with hash, size, author and reason, and audits it", async () => {
    const agent = await createAgent();
    const before = await current(agent.id, "soul");
    const reply = await admin().put(soulPath(agent.id), {
      content: "# Soul\nBe kind. ✨\n",
      baseVersionId: before.versionId,
      reason: "warmer",
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ status: "applied", versionId: expect.any(String) });
    const after = await current(agent.id, "soul");
    expect(after).toMatchObject({ content: "# Soul\nBe kind. ✨\n", versionId: reply.body.versionId, versionNumber: 2 });
    const versions = (await admin().get(`${soulPath(agent.id)}/versions`)).body.versions;
    expect(versions.map((v: { number: number }) => v.number)).toEqual([2, 1]);
    expect(versions[0]).toMatchObject({
      source: "api",
      authorType: "operator",
      authorLabel: "admin@test.local",
      reason: "warmer",
      size: 20,
      parentVersionId: before.versionId,
    });
    expect(versions[0].contentHash).toMatch(/^[0-9a-f]{64}$/);
    const one = await admin().get(`${soulPath(agent.id)}/versions/${reply.body.versionId}`);
    expect(one.body.content).toBe("# Soul\nBe kind. ✨\n");
    expect(await lastAudit(agent.id, "identity.written")).toMatchObject({
      actorType: "api_token",
      data: { kind: "SOUL", number: 2, reason: "warmer" },
    });
  });

  it("merges a stale save cleanly when the edits do not overlap (merged: true)", async () => {
    const agent = await createAgent();
    const base = await current(agent.id, "user");
    const theirs = `${base.content}\n- likes tests\n`;
    await admin().put(`/api/v1/agents/${agent.id}/identity/user`, { content: theirs, baseVersionId: base.versionId });
    const mine = base.content.replace("# USER.md", "# USER.md (ours)");
    const reply = await admin().put(`/api/v1/agents/${agent.id}/identity/user`, { content: mine, baseVersionId: base.versionId });
    expect(reply.status).toBe(200);
    expect(reply.body.merged).toBe(true);
    const after = await current(agent.id, "user");
    expect(after.content).toContain("# USER.md (ours)");
    expect(after.content).toContain("- likes tests");
  });

  it("refuses an overlapping stale save with 409 stale_base naming the current version, writing nothing", async () => {
    const agent = await createAgent();
    const base = await current(agent.id, "soul");
    const first = await admin().put(soulPath(agent.id), { content: "first writer", baseVersionId: base.versionId });
    const count = await versionCount(agent.id, "SOUL");
    const reply = await admin().put(soulPath(agent.id), { content: "second writer", baseVersionId: base.versionId });
    expect(reply.status).toBe(409);
    expect(reply.body.error).toMatchObject({
      code: "stale_base",
      details: { currentVersionId: first.body.versionId, currentVersionNumber: 2 },
    });
    expect(await versionCount(agent.id, "SOUL")).toBe(count);
    expect((await current(agent.id, "soul")).content).toBe("first writer");
  });

  it("refuses more than 64 KiB (counted in bytes) with 413, writing nothing", async () => {
    const agent = await createAgent();
    const base = await current(agent.id, "tools");
    const content = "€".repeat(22_000); // 22,000 characters, 66,000 bytes
    const reply = await admin().put(`/api/v1/agents/${agent.id}/identity/tools`, { content, baseVersionId: base.versionId });
    expect(reply.status).toBe(413);
    expect(reply.body.error).toMatchObject({ code: "payload_too_large", details: { limit: 65536, size: 66000 } });
    expect(await versionCount(agent.id, "TOOLS")).toBe(1);
    const exact = await admin().put(`/api/v1/agents/${agent.id}/identity/tools`, {
      content: "a".repeat(65536),
      baseVersionId: base.versionId,
    });
    expect(exact.status).toBe(200);
  });

  it("rejects unknown kinds (path-like included) with 404 and bad bodies with 400", async () => {
    const agent = await createAgent();
    for (const slug of ["soulx", "SOUL", "setup_script", "..%2Fsoul", "soul%2F..%2Fagent", "..%2F..%2Fidentity%2Fsoul"]) {
      const reply = await admin().get(`/api/v1/agents/${agent.id}/identity/${slug}`);
      expect(reply.status, slug).toBe(404);
      const put = await admin().put(`/api/v1/agents/${agent.id}/identity/${slug}`, { content: "x", baseVersionId: null });
      expect(put.status, slug).toBe(404);
    }
    const base = await current(agent.id, "soul");
    const missing = await admin().put(soulPath(agent.id), { baseVersionId: base.versionId });
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe("validation_failed");
    const extra = await admin().put(soulPath(agent.id), { content: "x", baseVersionId: base.versionId, evil: true });
    expect(extra.status).toBe(400);
    const foreign = await admin().put(soulPath(agent.id), { content: "x", baseVersionId: "not-a-version" });
    expect(foreign.status).toBe(400);
    expect(await versionCount(agent.id, "SOUL")).toBe(1);
    expect((await admin().get(`/api/v1/agents/nope/identity/soul`)).status).toBe(404);
  });

  it("lets a viewer read but not write, roll back, approve or re-bootstrap", async () => {
    const agent = await createAgent();
    const viewer = client((await userToken("viewer")).token);
    const base = await current(agent.id, "soul");
    expect((await viewer.get(soulPath(agent.id))).status).toBe(200);
    expect((await viewer.get(`${soulPath(agent.id)}/versions`)).status).toBe(200);
    expect((await viewer.get(`/api/v1/agents/${agent.id}/prompt`)).status).toBe(200);
    const put = await viewer.put(soulPath(agent.id), { content: "viewer was here", baseVersionId: base.versionId });
    expect(put.status).toBe(403);
    expect(put.body.error.code).toBe("forbidden");
    expect((await viewer.post(`${soulPath(agent.id)}/rollback`, { versionId: base.versionId })).status).toBe(403);
    expect((await viewer.post(`/api/v1/agents/${agent.id}/rebootstrap`)).status).toBe(403);
    expect(await versionCount(agent.id, "SOUL")).toBe(1);
    expect((await client().get(soulPath(agent.id))).status).toBe(401);
  });

  it("saves as an operator-role user, attributed to that user", async () => {
    const agent = await createAgent();
    const operator = await userToken("operator");
    const base = await current(agent.id, "heartbeat");
    const reply = await client(operator.token).put(`/api/v1/agents/${agent.id}/identity/heartbeat`, {
      content: "- check\n",
      baseVersionId: base.versionId,
    });
    expect(reply.status).toBe(200);
    const versions = (await admin().get(`/api/v1/agents/${agent.id}/identity/heartbeat/versions`)).body.versions;
    expect(versions[0]).toMatchObject({ authorType: "operator", authorId: operator.userId, authorLabel: operator.email });
  });
});

describe("rollback", () => {
  it("appends a new version with the old content; history is never rewritten", async () => {
    const agent = await createAgent();
    const v1 = await current(agent.id, "soul");
    await admin().put(soulPath(agent.id), { content: "v2 text", baseVersionId: v1.versionId });
    const reply = await admin().post(`${soulPath(agent.id)}/rollback`, { versionId: v1.versionId });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ status: "applied", number: 3 });
    const after = await current(agent.id, "soul");
    expect(after.content).toBe(v1.content);
    const versions = (await admin().get(`${soulPath(agent.id)}/versions`)).body.versions;
    expect(versions.map((v: { number: number; source: string }) => `${v.number}:${v.source}`)).toEqual([
      "3:rollback",
      "2:api",
      "1:template",
    ]);
    expect(versions[0].reason).toBe("Restored version 1");
    expect((await lastAudit(agent.id, "identity.rolled_back"))?.data).toMatchObject({ restoredNumber: 1, number: 3 });
    const unknown = await admin().post(`${soulPath(agent.id)}/rollback`, { versionId: "missing" });
    expect(unknown.status).toBe(404);
    const otherFile = (await current(agent.id, "user")).versionId;
    expect((await admin().post(`${soulPath(agent.id)}/rollback`, { versionId: otherFile })).status).toBe(404);
    expect(await versionCount(agent.id, "SOUL")).toBe(3);
  });
});

describe("capabilities.yaml is validated when saved", () => {
  const capsPath = (agentId: string) => `/api/v1/agents/${agentId}/identity/capabilities`;

  it("400s a file the worker could not enforce, naming each problem's line, and stores nothing", async () => {
    const agent = await createAgent();
    const base = await current(agent.id, "capabilities");
    const reply = await admin().put(capsPath(agent.id), {
      content: "tools:\n  allow: [Read, web_fetch]\nlimits:\n  max_task_minutes: 0\n  max_tokens_per_task: 5\n",
      baseVersionId: base.versionId,
    });
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe("validation_failed");
    expect(reply.body.error.message).toContain("did you mean WebFetch");
    // Read as the older shape, the same cage in the current shape comes with the error, ready to save.
    expect(reply.body.error.message).toContain("This looks like the older capabilities.yaml shape. The same cage in the current shape:");
    expect(await versionCount(agent.id, "CAPABILITIES")).toBe(1);
    const suggested = reply.body.error.message.split("The same cage in the current shape:\n")[1];
    const saved = await admin().put(capsPath(agent.id), { content: suggested, baseVersionId: base.versionId });
    expect(saved.status).toBe(200);
    expect(suggested).toContain("    - WebFetch\n");
    expect(suggested).toContain("max_task_minutes: 1\n");
    expect(suggested).not.toContain("max_tokens_per_task: 5");
    expect(reply.body.error.details).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: "tools.allow.1", line: 2 }),
        expect.objectContaining({ path: "limits.max_task_minutes", line: 4 }),
        expect.objectContaining({ path: "limits.max_tokens_per_task", line: 5 }),
      ]),
    );
    const broken = await admin().put(capsPath(agent.id), { content: "tools: [Read\n", baseVersionId: base.versionId });
    expect(broken.status).toBe(400);
    expect(broken.body.error.message).not.toContain("older capabilities.yaml shape");
    // Nothing invalid was stored: the template and the upgrade the operator saved.
    expect(await versionCount(agent.id, "CAPABILITIES")).toBe(2);
  });

  it("saves a valid file", async () => {
    const agent = await createAgent();
    const base = await current(agent.id, "capabilities");
    const content = 'tools:\n  allow: [Read, Grep, "Bash(npm test:*)"]\nnetwork: off\nlimits:\n  max_task_minutes: 15\n';
    const reply = await admin().put(capsPath(agent.id), { content, baseVersionId: base.versionId });
    expect(reply.status).toBe(200);
    expect((await current(agent.id, "capabilities")).content).toBe(content);
  });
});

describe("prompt preview and re-bootstrap", () => {
  it("previews the assembled prompt in order without changing anything", async () => {
    const agent = await createAgent();
    const before = await versionCount(agent.id, "BOOTSTRAP");
    const reply = await admin().get(`/api/v1/agents/${agent.id}/prompt`);
    expect(reply.status).toBe(200);
    const prompt: string = reply.body.systemPrompt;
    expect(reply.body.bootstrap).toBe(false);
    const order = [
      "# AGENT.md",
      "# SOUL.md",
      "# IDENTITY.md",
      "# USER.md",
      "# Capabilities (capabilities.yaml",
      "## Environment Setup",
      "## Operational Knowledge",
      "## How You Are Built",
    ].map((s) => prompt.indexOf(s));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(prompt).not.toContain("## What Goes Here");
    // Started from templates: no ritual, nothing for the next task to change first.
    expect(reply.body.notes).toEqual([]);
    expect(await versionCount(agent.id, "BOOTSTRAP")).toBe(before);
  });

  it("re-bootstrap: admin only; archives SOUL, IDENTITY and USER as deleted versions and restores BOOTSTRAP", async () => {
    const agent = await createAgent();
    const soul = await current(agent.id, "soul");
    await admin().put(soulPath(agent.id), { content: "a soul worth keeping", baseVersionId: soul.versionId });
    const operator = client((await userToken("operator")).token);
    expect((await operator.post(`/api/v1/agents/${agent.id}/rebootstrap`)).status).toBe(403);
    expect(await versionCount(agent.id, "SOUL")).toBe(2);

    const reply = await admin().post(`/api/v1/agents/${agent.id}/rebootstrap`);
    expect(reply.status).toBe(200);
    expect(reply.body.erased).toEqual(["SOUL.md", "IDENTITY.md", "USER.md"]);
    const files = (await admin().get(`/api/v1/agents/${agent.id}/identity`)).body.files as { kind: string; exists: boolean }[];
    expect(files.filter((f) => !f.exists).map((f) => f.kind)).toEqual(["SOUL", "IDENTITY", "USER"]);
    const versions = (await admin().get(`${soulPath(agent.id)}/versions`)).body.versions;
    expect(versions[0]).toMatchObject({ number: 3, deleted: true, source: "bootstrap" });
    expect((await admin().get(`${soulPath(agent.id)}/versions/${versions[1].id}`)).body.content).toBe("a soul worth keeping");
    const preview = await admin().get(`/api/v1/agents/${agent.id}/prompt`);
    expect(preview.body.bootstrap).toBe(true);
    expect(preview.body.systemPrompt).toContain("You only get born once.");
    expect((await lastAudit(agent.id, "identity.rebootstrapped"))?.data).toMatchObject({ erased: ["SOUL.md", "IDENTITY.md", "USER.md"] });

    // A second re-bootstrap erases nothing more.
    const again = await admin().post(`/api/v1/agents/${agent.id}/rebootstrap`);
    expect(again.body.erased).toEqual([]);
    expect(await versionCount(agent.id, "SOUL")).toBe(3);
  });
});

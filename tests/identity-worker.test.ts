// The worker identity API on the real server: locks, profiles, proposals, stale
// bases, caps, strict kinds, task timeline events. Refusals write nothing.
import { describe, expect, it } from "vitest";
import { agentWithWorker, auditActions, createTask, current, lastAudit, sql, versionCount } from "./identity-helpers";
import { admin, type client } from "./support/client";

const put = (worker: ReturnType<typeof client>, slug: string, body: Record<string, unknown>) =>
  worker.put(`/api/worker/identity/${slug}`, { reason: "learned something", trigger: "agent", ...body });

async function syncEvents(taskId: string) {
  return (
    await sql().all<{ message: string; data: string }>(
      `SELECT "message", "data" FROM "TaskEvent" WHERE "taskId" = ? AND "type" = 'sync' ORDER BY "id"`,
      [taskId],
    )
  ).map((row) => ({
    message: row.message,
    ...JSON.parse(row.data),
  }));
}

describe("locked kinds", () => {
  for (const slug of ["agent", "capabilities", "bootstrap"]) {
    it(`refuses ${slug} with 403 locked on every profile and trigger, writing nothing`, async () => {
      const { agent, worker } = await agentWithWorker({ securityProfile: "power" });
      const kind = slug.toUpperCase();
      const base = await current(agent.id, slug);
      for (const trigger of ["agent", "user_request"]) {
        for (const mode of ["write", "propose"]) {
          const reply = await put(worker, slug, { content: "I am free now", baseVersionId: base.versionId, trigger, mode });
          expect(reply.status).toBe(403);
          expect(reply.body.error.code).toBe("locked");
        }
      }
      expect(await versionCount(agent.id, kind)).toBe(kind === "BOOTSTRAP" ? 0 : 1);
      expect((await current(agent.id, slug)).content).toBe(base.content);
      expect(await lastAudit(agent.id, "identity.write_refused")).toMatchObject({ actorType: "worker", data: { kind, code: "locked" } });
      expect((await admin().get(`/api/v1/proposals?agentId=${agent.id}`)).body.total).toBe(0);
    });
  }
});

describe("leads", () => {
  it("records the agent as a lead when the agent is a lead", async () => {
    const { agent, worker } = await agentWithWorker({ role: "lead" });
    const base = await current(agent.id, "tools");
    expect((await put(worker, "tools", { content: "lead notes", baseVersionId: base.versionId })).status).toBe(200);
    const versions = (await admin().get(`/api/v1/agents/${agent.id}/identity/tools/versions`)).body.versions;
    expect(versions[0]).toMatchObject({ authorType: "lead", authorLabel: `${agent.name} (lead)` });
  });
});

describe("strictness and caps", () => {
  it("404s any kind outside the ten slugs, path-like strings and encodings included", async () => {
    const { agent, worker } = await agentWithWorker({ securityProfile: "power" });
    for (const slug of [
      "souls",
      "SOUL",
      "setup_script",
      "..%2Fagent",
      "..%2F..%2Fetc%2Fpasswd",
      "%2e%2e",
      "soul%2F..%2Fagent",
      "soul%00",
      "tools.md",
    ]) {
      const reply = await put(worker, slug, { content: "x", baseVersionId: null });
      expect(reply.status, slug).toBe(404);
      // Every spelling stays under /api/ once the URL is normalised ("%2e%2e" climbs to /api/worker/),
      // so every answer is in the API's error shape, never a page.
      expect(new URL(`http://host/api/worker/identity/${slug}`).pathname.startsWith("/api/"), slug).toBe(true);
      expect(reply.body?.error?.code, slug).toBe("not_found");
    }
    expect(
      Number((await sql().get<{ n: number }>('SELECT COUNT(*) AS "n" FROM "IdentityVersion" WHERE "agentId" = ?', [agent.id]))?.n),
    ).toBe(9);
  });

  it("413s content over 64 KiB in bytes, writing nothing", async () => {
    const { agent, worker } = await agentWithWorker();
    const base = await current(agent.id, "tools");
    const reply = await put(worker, "tools", { content: "ü".repeat(33_000), baseVersionId: base.versionId });
    expect(reply.status).toBe(413);
    expect(reply.body.error.code).toBe("payload_too_large");
    expect(await versionCount(agent.id, "TOOLS")).toBe(1);
  });

  it("400s bodies that break the contract (missing reason, bad trigger)", async () => {
    const { agent, worker } = await agentWithWorker();
    const base = await current(agent.id, "tools");
    expect((await worker.put("/api/worker/identity/tools", { content: "x", baseVersionId: base.versionId, trigger: "agent" })).status).toBe(
      400,
    );
    expect((await put(worker, "tools", { content: "x", baseVersionId: base.versionId, trigger: "whim" })).status).toBe(400);
    expect(await versionCount(agent.id, "TOOLS")).toBe(1);
  });

  it("takes worker tokens only, and acts on the token's own agent", async () => {
    const one = await agentWithWorker();
    const two = await agentWithWorker();
    const base = await current(one.agent.id, "tools");
    expect(
      (await admin().put("/api/worker/identity/tools", { content: "x", baseVersionId: base.versionId, reason: "r", trigger: "agent" }))
        .status,
    ).toBe(403);
    // Agent two cannot use agent one's version as a base: it is not a version of its file.
    const reply = await put(two.worker, "tools", { content: "x", baseVersionId: base.versionId });
    expect(reply.status).toBe(400);
    expect(await versionCount(one.agent.id, "TOOLS")).toBe(1);
    const read = await two.worker.get("/api/worker/identity/tools");
    expect(read.body.versionId).toBe((await current(two.agent.id, "tools")).versionId);
  });
});

describe("stale bases", () => {
  it("409 stale_base with the current versionId when the edits overlap; clean merges apply with merged: true", async () => {
    const { agent, worker } = await agentWithWorker();
    const base = await current(agent.id, "tools");
    const operatorEdit = base.content.replace("## Repos", "## Repos\n- swarmdeck: main app");
    const saved = await admin().put(`/api/v1/agents/${agent.id}/identity/tools`, { content: operatorEdit, baseVersionId: base.versionId });
    const overlapping = base.content.replace("## Repos", "## Repos\n- other: something else");
    const stale = await put(worker, "tools", { content: overlapping, baseVersionId: base.versionId });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toMatchObject({ code: "stale_base", details: { currentVersionId: saved.body.versionId } });
    expect(await versionCount(agent.id, "TOOLS")).toBe(2);
    expect((await current(agent.id, "tools")).content).toBe(operatorEdit);

    const elsewhere = base.content.replace("## Services", "## Services\n- postgres on 5432");
    const merged = await put(worker, "tools", { content: elsewhere, baseVersionId: base.versionId });
    expect(merged.status).toBe(200);
    expect(merged.body).toMatchObject({ status: "applied", merged: true });
    const now = (await current(agent.id, "tools")).content;
    expect(now).toContain("- swarmdeck: main app");
    expect(now).toContain("- postgres on 5432");
  });

  it("stores a stale proposal that cannot merge as a conflict (409), and the agent's text is kept", async () => {
    const { agent, worker } = await agentWithWorker({ securityProfile: "standard" });
    const base = await current(agent.id, "soul");
    await admin().put(`/api/v1/agents/${agent.id}/identity/soul`, {
      content: base.content.replace("## Core Values", "## Core Values (operator)"),
      baseVersionId: base.versionId,
    });
    const reply = await put(worker, "soul", {
      content: base.content.replace("## Core Values", "## Core Values (agent)"),
      baseVersionId: base.versionId,
    });
    expect(reply.status).toBe(409);
    expect(reply.body.error.details).toMatchObject({ proposalStatus: "conflict", proposalId: expect.any(String) });
    const detail = await admin().get(`/api/v1/proposals/${reply.body.error.details.proposalId}`);
    expect(detail.body).toMatchObject({ status: "conflict", baseMoved: true, mergeClean: false });
    expect(detail.body.proposedContent).toContain("## Core Values (agent)");
    expect(detail.body.mergedContent).toContain("<<<<<<<");
    expect(await versionCount(agent.id, "SOUL")).toBe(2);
  });

  it("on power, the worker's resend of a stale write waits for an operator instead of overwriting the newer version", async () => {
    const { agent, worker } = await agentWithWorker({ securityProfile: "power" });
    const base = await current(agent.id, "soul");
    const operatorEdit = base.content.replace("## Core Values", "## Core Values (operator)");
    const saved = await admin().put(`/api/v1/agents/${agent.id}/identity/soul`, { content: operatorEdit, baseVersionId: base.versionId });
    const agentText = base.content.replace("## Core Values", "## Core Values (agent)");
    const stale = await put(worker, "soul", { content: agentText, baseVersionId: base.versionId });
    expect(stale.status).toBe(409);
    // The worker resends the agent's text against the current version (worker/sync.ts): docs/architecture.md, "nothing is silently overwritten".
    const resent = await put(worker, "soul", { content: agentText, baseVersionId: saved.body.versionId, mode: "review" });
    expect(resent.status).toBe(202);
    expect(resent.body).toMatchObject({ status: "pending", proposalId: expect.any(String) });
    expect((await current(agent.id, "soul")).content).toBe(operatorEdit);
    const proposal = await admin().get(`/api/v1/proposals/${resent.body.proposalId}`);
    expect(proposal.body).toMatchObject({ status: "pending", proposedContent: agentText });
    // An ordinary proposal on power is still a write (reference 002).
    const proposed = await put(worker, "tools", {
      content: "# TOOLS\npower notes",
      baseVersionId: (await current(agent.id, "tools")).versionId,
      mode: "propose",
    });
    expect(proposed.status).toBe(200);
  });

  it("a newer proposal for the same file supersedes the pending one", async () => {
    const { agent, worker } = await agentWithWorker({ securityProfile: "standard" });
    const base = await current(agent.id, "soul");
    const first = await put(worker, "soul", { content: "first idea", baseVersionId: base.versionId });
    const second = await put(worker, "soul", { content: "better idea", baseVersionId: base.versionId });
    const other = await put(worker, "user", { content: "user idea", baseVersionId: (await current(agent.id, "user")).versionId });
    expect([first.status, second.status, other.status]).toEqual([202, 202, 202]);
    const superseded = await admin().get(`/api/v1/proposals/${first.body.proposalId}`);
    expect(superseded.body).toMatchObject({ status: "superseded", supersededById: second.body.proposalId });
    const pending = (await admin().get(`/api/v1/proposals?status=pending&agentId=${agent.id}`)).body.proposals;
    expect(pending.map((p: { id: string }) => p.id).sort()).toEqual([second.body.proposalId, other.body.proposalId].sort());
  });
});

describe("task timeline", () => {
  it("adds a sync TaskEvent for 200, 202, 403 and 409 outcomes to the agent's own task, and refuses a task not its own", async () => {
    const { agent, worker } = await agentWithWorker({ securityProfile: "standard" });
    const taskId = await createTask(agent.id);
    const foreignTask = await createTask(null);
    const tools = await current(agent.id, "tools");
    const soul = await current(agent.id, "soul");
    expect((await put(worker, "tools", { content: "tools v2", baseVersionId: tools.versionId, taskId })).status).toBe(200);
    expect((await put(worker, "soul", { content: "soul idea", baseVersionId: soul.versionId, taskId })).status).toBe(202);
    expect((await put(worker, "agent", { content: "no", baseVersionId: null, taskId })).status).toBe(403);
    expect((await put(worker, "tools", { content: "tools v2b", baseVersionId: tools.versionId, taskId })).status).toBe(409);
    // A task that is not this agent's (another's, or none at all) is refused, and nothing is written.
    const heartbeat = await current(agent.id, "heartbeat");
    for (const named of [foreignTask, "no-such-task"]) {
      const reply = await put(worker, "heartbeat", { content: "notes", baseVersionId: heartbeat.versionId, taskId: named });
      expect(reply.status).toBe(403);
      expect(reply.body.error).toMatchObject({ code: "forbidden", message: "That task is not this agent's", details: { taskId: named } });
    }
    expect(await current(agent.id, "heartbeat")).toEqual(heartbeat);
    expect(await versionCount(agent.id, "HEARTBEAT")).toBe(1);
    const events = await syncEvents(taskId);
    expect(events.map((e) => e.httpStatus)).toEqual([200, 202, 403, 409]);
    expect(events[0].message).toBe("TOOLS.md: applied");
    expect(events[1].message).toBe("SOUL.md: proposal queued for review");
    expect(events[2].message).toBe("AGENT.md: refused (locked)");
    expect(events[3].message).toBe("TOOLS.md: refused (stale_base)");
    expect(await syncEvents(foreignTask)).toEqual([]);
    const versions = (await admin().get(`/api/v1/agents/${agent.id}/identity/tools/versions`)).body.versions;
    expect(versions[0].taskId).toBe(taskId);
    expect((await auditActions(agent.id)).filter((a) => a === "identity.write_refused")).toHaveLength(2);
  });
});

describe("bootstrap ritual through the worker", () => {
  for (const securityProfile of ["paranoid", "standard", "power"]) {
    it(`${securityProfile}: after a re-bootstrap, the ritual's task may write SOUL then IDENTITY, which retires BOOTSTRAP.md`, async () => {
      const { agent, worker } = await agentWithWorker({ securityProfile });
      expect((await admin().post(`/api/v1/agents/${agent.id}/rebootstrap`)).status).toBe(200);
      expect((await admin().get(`/api/v1/agents/${agent.id}/prompt`)).body.bootstrap).toBe(true);
      const task = await admin().post("/api/v1/tasks", { title: "first task", agentId: agent.id });
      expect((await worker.get("/api/worker/poll?waitMs=0")).body.task.id).toBe(task.body.task.id);
      const bundle = await worker.get(`/api/worker/tasks/${task.body.task.id}/bundle`);
      expect(bundle.body.task.identityGrant).toEqual(["SOUL", "IDENTITY", "USER"]);
      expect(bundle.body.systemPrompt.startsWith("# AGENT.md")).toBe(true);
      expect(bundle.body.systemPrompt).toContain("You only get born once");
      const taskId = task.body.task.id;
      const soul = await put(worker, "soul", { content: "# SOUL\ncurious", baseVersionId: null, taskId });
      expect(soul.status).toBe(200);
      expect((await current(agent.id, "bootstrap")).exists).toBe(true);
      const identity = await put(worker, "identity", { content: "# IDENTITY\nName: Wren", baseVersionId: null, taskId });
      expect(identity.status).toBe(200);
      expect((await current(agent.id, "bootstrap")).exists).toBe(false);
      const versions = (await admin().get(`/api/v1/agents/${agent.id}/identity/bootstrap/versions`)).body.versions;
      expect(versions[0]).toMatchObject({ deleted: true, source: "bootstrap", authorType: "system" });
      expect(await lastAudit(agent.id, "identity.bootstrap_retired")).toBeDefined();
      expect((await lastAudit(agent.id, "task.identity_granted"))?.data).toMatchObject({ by: "bootstrap" });
      const preview = await admin().get(`/api/v1/agents/${agent.id}/prompt`);
      expect(preview.body.bootstrap).toBe(false);
      expect(preview.body.systemPrompt).toContain("Name: Wren");
    });
  }

  it("an agent created to bootstrap itself runs the ritual at its first task; one from templates does not", async () => {
    const boot = await agentWithWorker({ identityStart: "bootstrap", securityProfile: "paranoid" });
    const plain = await agentWithWorker({ identityStart: "templates", securityProfile: "paranoid" });
    for (const { agent, worker } of [boot, plain]) {
      const task = await admin().post("/api/v1/tasks", { title: "first task", agentId: agent.id });
      await worker.get("/api/worker/poll?waitMs=0");
      const bundle = await worker.get(`/api/worker/tasks/${task.body.task.id}/bundle`);
      const ritual = agent.id === boot.agent.id;
      expect(bundle.body.systemPrompt.includes("You only get born once")).toBe(ritual);
      expect(bundle.body.task.identityGrant).toEqual(ritual ? ["SOUL", "IDENTITY", "USER"] : []);
      expect(bundle.body.files.some((f: { kind: string }) => f.kind === "SOUL")).toBe(!ritual);
    }
  });

  it("400s an unknown identity start", async () => {
    const reply = await admin().post("/api/v1/agents", { name: `boot-${Date.now()}`, identityStart: "clone" });
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe("validation_failed");
  });
});

// Reviewing proposals on the real server: approve, approve edited, reject with a
// note, moved bases (clean merge or 409 to edit), roles, and no double decisions.
import { describe, expect, it } from "vitest";
import { agentWithWorker, current, lastAudit, sql, userToken, versionCount } from "./identity-helpers";
import { admin, client } from "./support/client";

async function propose(slug = "soul", content = "# Soul\nproposed text\n") {
  const { agent, worker } = await agentWithWorker({ securityProfile: "standard" });
  const base = await current(agent.id, slug);
  const reply = await worker.put(`/api/worker/identity/${slug}`, {
    content,
    baseVersionId: base.versionId,
    reason: "be clearer",
    trigger: "agent",
  });
  expect(reply.status).toBe(202);
  return { agent, worker, base, proposalId: reply.body.proposalId as string };
}

describe("approve", () => {
  it("applies the proposed text as a version authored by the agent, source approved_proposal", async () => {
    const { agent, proposalId } = await propose();
    const reply = await admin().post(`/api/v1/proposals/${proposalId}/approve`, { note: "nice" });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ number: 2, edited: false, merged: false });
    expect((await current(agent.id, "soul")).content).toBe("# Soul\nproposed text\n");
    const versions = (await admin().get(`/api/v1/agents/${agent.id}/identity/soul/versions`)).body.versions;
    expect(versions[0]).toMatchObject({ source: "approved_proposal", authorType: "agent", authorId: agent.id, reason: "be clearer" });
    const detail = (await admin().get(`/api/v1/proposals/${proposalId}`)).body;
    expect(detail).toMatchObject({
      status: "approved",
      edited: false,
      reviewNote: "nice",
      reviewerLabel: "admin@test.local",
      resultVersionId: reply.body.versionId,
    });
    expect((await lastAudit(agent.id, "identity.proposal_approved"))?.data).toMatchObject({ edited: false, note: "nice" });
    const twice = await admin().post(`/api/v1/proposals/${proposalId}/approve`, {});
    expect(twice.status).toBe(409);
    expect(await versionCount(agent.id, "SOUL")).toBe(2);
  });

  it("needs no body at all: every field of an approval is optional (docs/architecture.md: {note?, content?})", async () => {
    const { agent, proposalId } = await propose();
    const reply = await admin().post(`/api/v1/proposals/${proposalId}/approve`);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ edited: false });
    expect((await current(agent.id, "soul")).content).toBe("# Soul\nproposed text\n");
    expect((await admin().get(`/api/v1/proposals/${proposalId}`)).body).toMatchObject({ status: "approved", reviewNote: null });
  });

  it("applies the reviewer's edited text and marks the proposal edited", async () => {
    const { agent, proposalId } = await propose();
    const reply = await admin().post(`/api/v1/proposals/${proposalId}/approve`, { content: "# Soul\nthe reviewer's version\n" });
    expect(reply.status).toBe(200);
    expect(reply.body.edited).toBe(true);
    expect((await current(agent.id, "soul")).content).toBe("# Soul\nthe reviewer's version\n");
    expect((await admin().get(`/api/v1/proposals/${proposalId}`)).body.edited).toBe(true);
  });

  it("merges onto a moved base when clean; otherwise 409 asks the reviewer to edit, and an edit resolves it", async () => {
    const { agent, base, proposalId } = await propose("soul", "");
    // Replace that empty proposal with a real one built on the template.
    const { worker } = { worker: client(await (await import("./identity-helpers")).workerToken(agent.id)) };
    const real = await worker.put("/api/worker/identity/soul", {
      content: base.content.replace("## Working Style", "## Working Style\n- agent line"),
      baseVersionId: base.versionId,
      reason: "style",
      trigger: "agent",
    });
    expect((await admin().get(`/api/v1/proposals/${proposalId}`)).body.status).toBe("superseded");
    await admin().put(`/api/v1/agents/${agent.id}/identity/soul`, {
      content: base.content.replace("## Boundaries", "## Boundaries\n- operator line"),
      baseVersionId: base.versionId,
    });
    const clean = await admin().post(`/api/v1/proposals/${real.body.proposalId}/approve`, {});
    expect(clean.status).toBe(200);
    expect(clean.body.merged).toBe(true);
    const merged = (await current(agent.id, "soul")).content;
    expect(merged).toContain("- agent line");
    expect(merged).toContain("- operator line");

    const now = await current(agent.id, "soul");
    const clash = await worker.put("/api/worker/identity/soul", {
      content: now.content.replace("## Core Values", "## Core Values (agent)"),
      baseVersionId: now.versionId,
      reason: "clash",
      trigger: "agent",
    });
    await admin().put(`/api/v1/agents/${agent.id}/identity/soul`, {
      content: now.content.replace("## Core Values", "## Core Values (operator)"),
      baseVersionId: now.versionId,
    });
    const count = await versionCount(agent.id, "SOUL");
    const refused = await admin().post(`/api/v1/proposals/${clash.body.proposalId}/approve`, {});
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe("stale_base");
    expect(refused.body.error.message).toMatch(/Edit the proposed text/);
    expect(await versionCount(agent.id, "SOUL")).toBe(count);
    const detail = (await admin().get(`/api/v1/proposals/${clash.body.proposalId}`)).body;
    expect(detail).toMatchObject({ status: "conflict", mergeClean: false });
    const markers = await admin().post(`/api/v1/proposals/${clash.body.proposalId}/approve`, { content: detail.mergedContent });
    expect(markers.status).toBe(400);
    const resolved = detail.mergedContent.replace(/<<<<<<< current\n.*\n=======\n(.*)\n>>>>>>> proposed/, "$1");
    const ok = await admin().post(`/api/v1/proposals/${clash.body.proposalId}/approve`, { content: resolved });
    expect(ok.status).toBe(200);
    expect((await current(agent.id, "soul")).content).toContain("## Core Values (agent)");
  });
});

describe("reject", () => {
  it("needs a note, records it, and leaves the file alone", async () => {
    const { agent, proposalId } = await propose();
    const noNote = await admin().post(`/api/v1/proposals/${proposalId}/reject`, {});
    expect(noNote.status).toBe(400);
    const reply = await admin().post(`/api/v1/proposals/${proposalId}/reject`, { note: "too vague" });
    expect(reply.status).toBe(200);
    expect(await versionCount(agent.id, "SOUL")).toBe(1);
    const detail = (await admin().get(`/api/v1/proposals/${proposalId}`)).body;
    expect(detail).toMatchObject({ status: "rejected", reviewNote: "too vague" });
    expect((await lastAudit(agent.id, "identity.proposal_rejected"))?.data).toMatchObject({ note: "too vague" });
    expect((await admin().post(`/api/v1/proposals/${proposalId}/approve`, {})).status).toBe(409);
    const rejected = (await admin().get(`/api/v1/proposals?status=rejected&agentId=${agent.id}`)).body;
    expect(rejected.proposals.map((p: { id: string }) => p.id)).toEqual([proposalId]);
  });

  it("is operator-only: a viewer can read proposals but not decide", async () => {
    const { agent, proposalId } = await propose();
    const viewer = client((await userToken("viewer")).token);
    expect((await viewer.get("/api/v1/proposals?status=pending")).status).toBe(200);
    expect((await viewer.get("/api/v1/proposals/count?status=pending")).status).toBe(200);
    expect((await viewer.post(`/api/v1/proposals/${proposalId}/approve`, {})).status).toBe(403);
    expect((await viewer.post(`/api/v1/proposals/${proposalId}/reject`, { note: "no" })).status).toBe(403);
    expect(await versionCount(agent.id, "SOUL")).toBe(1);
    expect((await admin().get(`/api/v1/proposals/${proposalId}`)).body.status).toBe("pending");
    expect((await admin().get("/api/v1/proposals/missing")).status).toBe(404);
    expect((await admin().get("/api/v1/proposals?status=bogus")).status).toBe(400);
  });
});

describe("an archived agent's proposals", () => {
  it("leave the review queue when the agent is archived: its open ones are closed as rejected, its decided ones stay as they were", async () => {
    const { agent, worker, proposalId: decided } = await propose("soul", "# Soul\nfirst\n");
    expect((await admin().post(`/api/v1/proposals/${decided}/approve`, {})).status).toBe(200);
    const open = await worker.put("/api/worker/identity/identity", {
      content: "# Identity\nproposed\n",
      baseVersionId: (await current(agent.id, "identity")).versionId,
      reason: "present itself",
      trigger: "agent",
    });
    expect(open.status).toBe(202);

    expect((await admin().delete(`/api/v1/agents/${agent.id}`)).status).toBe(204);
    expect((await admin().get(`/api/v1/proposals?status=pending&agentId=${agent.id}`)).body.proposals).toEqual([]);
    const closed = (await admin().get(`/api/v1/proposals/${open.body.proposalId}`)).body;
    expect(closed).toMatchObject({ status: "rejected", reviewNote: "The agent was archived", reviewerLabel: "admin@test.local" });
    expect(closed.decidedAt).not.toBeNull();
    expect((await admin().get(`/api/v1/proposals/${decided}`)).body).toMatchObject({ status: "approved" });
    expect((await lastAudit(agent.id, "agent.archived"))?.data).toMatchObject({ proposalsClosed: 1 });
    // Nothing to decide any more: the closed proposal cannot be approved afterwards.
    expect((await admin().post(`/api/v1/proposals/${open.body.proposalId}/approve`, {})).status).toBe(409);
  });

  it("can still be rejected, never approved, if one is open behind the archive (a write that raced it, an older database)", async () => {
    const { agent, proposalId } = await propose();
    expect((await admin().delete(`/api/v1/agents/${agent.id}`)).status).toBe(204);
    await sql().run(`UPDATE "IdentityProposal" SET "status" = 'pending', "reviewNote" = NULL, "decidedAt" = NULL WHERE "id" = ?`, [
      proposalId,
    ]);
    const approve = await admin().post(`/api/v1/proposals/${proposalId}/approve`, {});
    expect(approve.status).toBe(409);
    expect(approve.body.error.message).toMatch(/archived/);
    const reject = await admin().post(`/api/v1/proposals/${proposalId}/reject`, { note: "the agent is gone" });
    expect(reject.status).toBe(200);
    expect((await admin().get(`/api/v1/proposals/${proposalId}`)).body).toMatchObject({
      status: "rejected",
      reviewNote: "the agent is gone",
    });
  });
});

describe("one classification", () => {
  it("a proposal whose change overlaps a later edit is a conflict in the list, the counts and its page; clean again, it is pending", async () => {
    const { agent, base, proposalId } = await propose("soul", "# Soul\nproposed text\n");
    const status = async () => (await admin().get(`/api/v1/proposals/${proposalId}`)).body.status;
    const listed = async (s: string) =>
      (await admin().get(`/api/v1/proposals?status=${s}&agentId=${agent.id}`)).body.proposals.map((p: { id: string }) => p.id);
    expect(await status()).toBe("pending");
    const count = async (s: string) => (await admin().get(`/api/v1/proposals/count?status=${s}`)).body.total as number;
    const before = { pending: await count("pending"), conflict: await count("conflict"), open: await count("open") };

    // An operator edits the very lines the agent changed: the change no longer merges.
    const edited = await admin().put(`/api/v1/agents/${agent.id}/identity/soul`, {
      content: "# Soul\nthe operator's text\n",
      baseVersionId: base.versionId,
      reason: "tightened",
    });
    expect(edited.status).toBe(200);
    expect(await status()).toBe("conflict");
    expect(await listed("conflict")).toEqual([proposalId]);
    expect(await listed("pending")).toEqual([]);
    // It moved from Pending to Conflict, and still waits for a reviewer (the badge and the home page count `open`).
    expect({ pending: await count("pending"), conflict: await count("conflict"), open: await count("open") }).toEqual({
      pending: before.pending - 1,
      conflict: before.conflict + 1,
      open: before.open,
    });

    // Back to the text the proposal was based on: it applies cleanly again.
    const restored = await admin().put(`/api/v1/agents/${agent.id}/identity/soul`, {
      content: base.content,
      baseVersionId: edited.body.versionId,
      reason: "undo",
    });
    expect(restored.status).toBe(200);
    expect(await status()).toBe("pending");
    expect(await listed("pending")).toEqual([proposalId]);
    expect(await listed("conflict")).toEqual([]);
  });
});

describe("nothing new to review", () => {
  const openProposals = async (agentId: string) =>
    [
      ...(await admin().get(`/api/v1/proposals?status=pending&agentId=${agentId}`)).body.proposals,
      ...(await admin().get(`/api/v1/proposals?status=conflict&agentId=${agentId}`)).body.proposals,
    ] as Array<{ id: string }>;

  it("a proposal of the file's current text queues nothing: 200 applied, unchanged, the live version", async () => {
    const { agent, worker } = await agentWithWorker({ securityProfile: "standard" });
    const base = await current(agent.id, "soul");
    const reply = await worker.put("/api/worker/identity/soul", {
      content: base.content,
      baseVersionId: base.versionId,
      reason: "no real change",
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ status: "applied", versionId: base.versionId, unchanged: true });
    expect(await openProposals(agent.id)).toEqual([]);
    expect((await admin().get("/api/v1/proposals/count?status=pending")).status).toBe(200);
    expect(await versionCount(agent.id, "SOUL")).toBe(1);
  });

  it("a stale proposal the operator has already made (same text now live) queues nothing either", async () => {
    const { agent, worker } = await agentWithWorker({ securityProfile: "standard" });
    const base = await current(agent.id, "soul");
    const wanted = base.content.replace("## Boundaries", "## Boundaries\n- ask before deleting files");
    const saved = await admin().put(`/api/v1/agents/${agent.id}/identity/soul`, { content: wanted, baseVersionId: base.versionId });
    expect(saved.status).toBe(200);
    const reply = await worker.put("/api/worker/identity/soul", { content: wanted, baseVersionId: base.versionId, reason: "boundary" });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ status: "applied", versionId: saved.body.versionId, unchanged: true });
    expect(await openProposals(agent.id)).toEqual([]);
    expect(await versionCount(agent.id, "SOUL")).toBe(2);
  });

  it("the same change sent again keeps the one open proposal (same id, still pending) instead of superseding it with a copy", async () => {
    const { agent, worker, base, proposalId } = await propose("soul", "# Soul\nbe brief\n");
    const again = await worker.put("/api/worker/identity/soul", {
      content: "# Soul\nbe brief\n",
      baseVersionId: base.versionId,
      reason: "retry",
    });
    expect(again.status).toBe(202);
    expect(again.body).toEqual({ status: "pending", proposalId });
    expect((await openProposals(agent.id)).map((p) => p.id)).toEqual([proposalId]);
    expect((await admin().get(`/api/v1/proposals/${proposalId}`)).body.status).toBe("pending");
    // A different change still replaces it: one open proposal per file.
    const other = await worker.put("/api/worker/identity/soul", {
      content: "# Soul\nbe thorough\n",
      baseVersionId: base.versionId,
      reason: "changed my mind",
    });
    expect(other.status).toBe(202);
    expect(other.body.proposalId).not.toBe(proposalId);
    expect((await admin().get(`/api/v1/proposals/${proposalId}`)).body.status).toBe("superseded");
    expect((await openProposals(agent.id)).map((p) => p.id)).toEqual([other.body.proposalId]);
  });
});

// Identity writes and reviews arriving at the same moment, as they do when several
// app instances serve one PostgreSQL database (each request may land on another
// instance): every save is judged against the version the previous one committed,
// version numbers stay unique and gapless, and a proposal is decided once. On
// PostgreSQL the file row lock (lib/identity/versions.ts ensureFile) and the
// file-then-proposal locks (lib/identity/proposals.ts) give this; SQLite runs one
// write transaction at a time, and the same assertions hold.
import { describe, expect, it } from "vitest";
import { agentWithWorker, current, versionCount } from "./identity-helpers";
import { admin, createAgent } from "./support/client";

const SAVES = 8;

describe("identity under concurrent requests", () => {
  it("saves on one base: exactly one applies, the others are refused as stale; numbers stay gapless", async () => {
    const agent = await createAgent();
    const base = await current(agent.id, "soul");
    const replies = await Promise.all(
      Array.from({ length: SAVES }, (_, i) =>
        admin().put(`/api/v1/agents/${agent.id}/identity/soul`, {
          content: `# Soul\nwriter ${i} replaces everything\n`,
          baseVersionId: base.versionId,
          reason: `writer ${i}`,
        }),
      ),
    );
    const statuses = replies.map((reply) => reply.status).sort();
    expect(statuses).toEqual([200, ...Array(SAVES - 1).fill(409)]);
    for (const reply of replies.filter((r) => r.status === 409)) expect(reply.body.error.code).toBe("stale_base");
    expect(await versionCount(agent.id, "SOUL")).toBe(2);
    const versions = (await admin().get(`/api/v1/agents/${agent.id}/identity/soul/versions`)).body.versions;
    expect(versions.map((v: { number: number }) => v.number)).toEqual([2, 1]);
    const winner = replies.find((reply) => reply.status === 200);
    expect((await current(agent.id, "soul")).versionId).toBe(winner?.body.versionId);
  });

  it("saves of different lines on one base: all apply (merged), numbered without gap or repeat, and no edit is lost", async () => {
    const agent = await createAgent();
    const slot = (i: number) => `slot ${i}: untouched`;
    const text = `# Soul\n\n${Array.from({ length: SAVES }, (_, i) => `${slot(i)}\n\nkeep ${i}\n`).join("\n")}`;
    const seeded = await admin().put(`/api/v1/agents/${agent.id}/identity/soul`, {
      content: text,
      baseVersionId: (await current(agent.id, "soul")).versionId,
    });
    expect(seeded.status).toBe(200);
    const replies = await Promise.all(
      Array.from({ length: SAVES }, (_, i) =>
        admin().put(`/api/v1/agents/${agent.id}/identity/soul`, {
          content: text.replace(slot(i), `slot ${i}: edited by writer ${i}`),
          baseVersionId: seeded.body.versionId,
          reason: `writer ${i}`,
        }),
      ),
    );
    expect(replies.map((reply) => reply.status)).toEqual(Array(SAVES).fill(200));
    const versions = (await admin().get(`/api/v1/agents/${agent.id}/identity/soul/versions`)).body.versions as { number: number }[];
    expect(versions.map((v) => v.number)).toEqual(Array.from({ length: SAVES + 2 }, (_, i) => SAVES + 2 - i));
    const final = (await current(agent.id, "soul")).content;
    for (let i = 0; i < SAVES; i++) expect(final).toContain(`slot ${i}: edited by writer ${i}`);
  });

  it("a proposal approved by several reviewers at once is approved once: one 200, the others 409, one new version", async () => {
    const { agent, worker } = await agentWithWorker({ securityProfile: "standard" });
    const base = await current(agent.id, "soul");
    const proposed = await worker.put("/api/worker/identity/soul", {
      content: "# Soul\nproposed under contention\n",
      baseVersionId: base.versionId,
      reason: "race",
      trigger: "agent",
    });
    expect(proposed.status).toBe(202);
    const id = proposed.body.proposalId as string;
    const replies = await Promise.all(Array.from({ length: 6 }, () => admin().post(`/api/v1/proposals/${id}/approve`, {})));
    expect(replies.map((reply) => reply.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    expect(await versionCount(agent.id, "SOUL")).toBe(2);
    expect((await admin().get(`/api/v1/proposals/${id}`)).body.status).toBe("approved");
  });

  it("approving and rejecting one proposal at once: exactly one decision stands", async () => {
    const { agent, worker } = await agentWithWorker({ securityProfile: "standard" });
    const base = await current(agent.id, "soul");
    const proposed = await worker.put("/api/worker/identity/soul", {
      content: "# Soul\napprove or reject\n",
      baseVersionId: base.versionId,
      reason: "race",
      trigger: "agent",
    });
    const id = proposed.body.proposalId as string;
    const [approve, reject] = await Promise.all([
      admin().post(`/api/v1/proposals/${id}/approve`, {}),
      admin().post(`/api/v1/proposals/${id}/reject`, { note: "no" }),
    ]);
    expect([approve.status, reject.status].sort()).toEqual([200, 409]);
    const status = (await admin().get(`/api/v1/proposals/${id}`)).body.status;
    expect(status).toBe(approve.status === 200 ? "approved" : "rejected");
    expect(await versionCount(agent.id, "SOUL")).toBe(approve.status === 200 ? 2 : 1);
  });
});

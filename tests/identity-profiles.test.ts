// Reference 002's table over the real app, for every identity kind, profile and
// trigger (issue 12): the expected outcome of each cell is written out below as a
// literal, from the reference and the issue, not computed from lib/identity/rules.ts.
// An explicit request exists only where an operator granted the task identity rights;
// the worker cannot declare one.
import { describe, expect, it } from "vitest";
import { current, versionCount, workerToken } from "./identity-helpers";
import { admin, client, createAgent } from "./support/client";

type Cell = "apply" | "queue" | "refuse" | "locked";
type Row = Record<"paranoid" | "standard" | "power", Cell>;
const STEERING: Row = { paranoid: "refuse", standard: "queue", power: "apply" };
const NOTES_WRITE: Row = { paranoid: "queue", standard: "apply", power: "apply" };
const NOTES_PROPOSE: Row = { paranoid: "queue", standard: "queue", power: "apply" };
const ALWAYS: Row = { paranoid: "apply", standard: "apply", power: "apply" };
const LOCKED: Row = { paranoid: "locked", standard: "locked", power: "locked" };

const KINDS = ["soul", "identity", "user", "claude", "setup-script", "tools", "heartbeat", "agent", "capabilities", "bootstrap"] as const;
const WRITABLE = ["SOUL", "IDENTITY", "USER", "CLAUDE", "SETUP_SCRIPT", "TOOLS", "HEARTBEAT"];

/** trigger → kind → profile → what a user sees happen. */
const TABLE: Record<"agent-write" | "agent-propose" | "granted-write", Record<(typeof KINDS)[number], Row>> = {
  "agent-write": {
    soul: STEERING,
    identity: STEERING,
    user: STEERING,
    claude: STEERING,
    "setup-script": STEERING,
    tools: NOTES_WRITE,
    heartbeat: NOTES_WRITE,
    agent: LOCKED,
    capabilities: LOCKED,
    bootstrap: LOCKED,
  },
  "agent-propose": {
    soul: STEERING,
    identity: STEERING,
    user: STEERING,
    claude: STEERING,
    "setup-script": STEERING,
    tools: NOTES_PROPOSE,
    heartbeat: NOTES_PROPOSE,
    agent: LOCKED,
    capabilities: LOCKED,
    bootstrap: LOCKED,
  },
  "granted-write": {
    soul: ALWAYS,
    identity: ALWAYS,
    user: ALWAYS,
    claude: ALWAYS,
    "setup-script": ALWAYS,
    tools: ALWAYS,
    heartbeat: ALWAYS,
    agent: LOCKED,
    capabilities: LOCKED,
    bootstrap: LOCKED,
  },
};

/** An agent with a worker that has claimed one task, created by an operator with `identityGrant`. */
async function agentOnTask(securityProfile: string, identityGrant: string[]) {
  const agent = await createAgent({ securityProfile });
  const worker = client(await workerToken(agent.id));
  const created = await admin().post("/api/v1/tasks", { title: "identity rights test", agentId: agent.id, identityGrant });
  expect(created.status).toBe(201);
  const poll = await worker.get("/api/worker/poll?waitMs=0");
  expect(poll.status).toBe(200);
  expect(poll.body.task.id).toBe(created.body.task.id);
  return { agent, worker, taskId: created.body.task.id as string };
}

async function attempt(
  ctx: { agent: { id: string }; worker: ReturnType<typeof client>; taskId: string },
  slug: string,
  mode: "write" | "propose",
  text: string,
) {
  const base = await current(ctx.agent.id, slug);
  const reply = await ctx.worker.put(`/api/worker/identity/${slug}`, {
    content: text,
    baseVersionId: base.versionId ?? null,
    reason: `cell ${slug} ${mode}`,
    mode,
    taskId: ctx.taskId,
  });
  return { reply, base };
}

for (const profile of ["paranoid", "standard", "power"] as const) {
  describe(`${profile} profile`, () => {
    for (const [trigger, rows] of Object.entries(TABLE)) {
      it(`${trigger}: every kind does what the table says`, async () => {
        const ctx = await agentOnTask(profile, trigger === "granted-write" ? WRITABLE : []);
        const mode = trigger === "agent-propose" ? "propose" : "write";
        for (const slug of KINDS) {
          const want = rows[slug as (typeof KINDS)[number]][profile];
          const text = `# ${slug} by the agent (${trigger})\n`;
          const { reply, base } = await attempt(ctx, slug, mode, text);
          const cell = `${slug} ${trigger} on ${profile}`;
          const now = await current(ctx.agent.id, slug);
          if (want === "apply") {
            expect(reply.status, cell).toBe(200);
            expect(now.content, cell).toBe(text);
          } else {
            expect(now.content, `${cell}: the file is untouched`).toBe(base.content);
          }
          if (want === "queue") {
            expect(reply.status, cell).toBe(202);
            const proposal = await admin().get(`/api/v1/proposals/${reply.body.proposalId}`);
            expect(proposal.body, cell).toMatchObject({ status: "pending", proposedContent: text, trigger: "agent" });
          }
          if (want === "refuse") {
            expect(reply.status, cell).toBe(403);
            expect(reply.body.error.code, cell).toBe("profile_forbids");
            // The agent's text is not lost: a refused proposal the operators and the agent can read.
            const kept = await admin().get(`/api/v1/proposals/${reply.body.error.details.proposalId}`);
            expect(kept.body, cell).toMatchObject({ status: "refused", proposedContent: text });
            const own = await ctx.worker.get("/api/worker/proposals");
            expect(own.body.proposals[0], cell).toMatchObject({
              status: "refused",
              proposedContent: text,
              note: expect.stringMatching(/grant/),
            });
          }
          if (want === "locked") {
            expect(reply.status, cell).toBe(403);
            expect(reply.body.error.code, cell).toBe("locked");
            expect(await versionCount(ctx.agent.id, slug.toUpperCase()), cell).toBe(slug === "bootstrap" ? 0 : 1);
          }
        }
      });
    }
  });
}

describe("an explicit request is the operator's grant, never the agent's word", () => {
  const soulWrite = (ctx: { agent: { id: string }; worker: ReturnType<typeof client> }, extra: Record<string, unknown>) =>
    current(ctx.agent.id, "soul").then((base) =>
      ctx.worker.put("/api/worker/identity/soul", { content: "# SOUL\nI decided", baseVersionId: base.versionId, reason: "me", ...extra }),
    );

  it("trigger user_request from the worker is ignored: paranoid still refuses", async () => {
    const ctx = await agentOnTask("paranoid", []);
    const reply = await soulWrite(ctx, { trigger: "user_request", taskId: ctx.taskId });
    expect(reply.status).toBe(403);
    expect(reply.body.error.code).toBe("profile_forbids");
  });

  it("a grant for SOUL does not cover CLAUDE.md", async () => {
    const ctx = await agentOnTask("paranoid", ["SOUL"]);
    expect((await soulWrite(ctx, { taskId: ctx.taskId })).status).toBe(200);
    const claude = await attempt(ctx, "claude", "write", "be reckless");
    expect(claude.reply.status).toBe(403);
  });

  it("counts only inside the claimed task: named or not, not after it ends, not from another agent", async () => {
    const ctx = await agentOnTask("paranoid", ["SOUL"]);
    // docs/architecture.md's body is {content, baseVersionId, reason}: the task the agent has claimed is where the write comes from.
    const unnamed = await soulWrite(ctx, {});
    expect(unnamed.status).toBe(200);
    expect(unnamed.body.status).toBe("applied");
    const versions = (await admin().get(`/api/v1/agents/${ctx.agent.id}/identity/soul/versions`)).body.versions;
    expect(versions[0]).toMatchObject({ id: unnamed.body.versionId, taskId: ctx.taskId });
    const other = await agentOnTask("paranoid", []);
    expect((await soulWrite(other, { taskId: ctx.taskId })).status).toBe(403);
    expect((await soulWrite(other, {})).status).toBe(403);
    expect((await ctx.worker.post(`/api/worker/tasks/${ctx.taskId}/complete`, { output: "done" })).status).toBe(200);
    expect((await soulWrite(ctx, { taskId: ctx.taskId })).status).toBe(403);
    expect((await soulWrite(ctx, {})).status).toBe(403);
  });

  it("a task still waiting for its worker carries the grant but does not honour it yet", async () => {
    const agent = await createAgent({ securityProfile: "paranoid" });
    const worker = client(await workerToken(agent.id));
    const created = await admin().post("/api/v1/tasks", { title: "later", agentId: agent.id, identityGrant: ["SOUL"] });
    expect((await soulWrite({ agent, worker }, { taskId: created.body.task.id })).status).toBe(403);
    expect((await soulWrite({ agent, worker }, {})).status).toBe(403);
  });

  it("the grant is shown on the task, can be changed until it ends, and every change is on the timeline and audited", async () => {
    const ctx = await agentOnTask("standard", ["USER"]);
    const read = await admin().get(`/api/v1/tasks/${ctx.taskId}`);
    expect(read.body.task.identityGrant).toEqual(["USER"]);
    const changed = await admin().patch(`/api/v1/tasks/${ctx.taskId}`, { action: "grant", identityGrant: ["SOUL", "USER"] });
    expect(changed.status).toBe(200);
    expect(changed.body.task.identityGrant).toEqual(["SOUL", "USER"]);
    expect((await soulWrite(ctx, { taskId: ctx.taskId })).status).toBe(200);
    const events = (await admin().get(`/api/v1/tasks/${ctx.taskId}`)).body.events.filter((e: { type: string }) => e.type === "grant");
    expect(events.map((e: { data: unknown }) => e.data)).toEqual([
      { from: [], to: ["USER"] },
      { from: ["USER"], to: ["SOUL", "USER"] },
    ]);
    const audit = await admin().get(`/api/v1/audit?action=task.identity_granted&limit=200`);
    expect(audit.status).toBe(200);
    expect(JSON.stringify(audit.body)).toContain(ctx.taskId);
  });

  it("refuses a grant of the cage with 400, and a grant on a finished task with 409", async () => {
    const ctx = await agentOnTask("power", []);
    for (const kind of ["AGENT", "CAPABILITIES", "BOOTSTRAP", "../SOUL"]) {
      const reply = await admin().post("/api/v1/tasks", { title: "x", agentId: ctx.agent.id, identityGrant: [kind] });
      expect(reply.status, kind).toBe(400);
      expect(reply.body.error.code).toBe("validation_failed");
    }
    await ctx.worker.post(`/api/worker/tasks/${ctx.taskId}/complete`, { output: "done" });
    const late = await admin().patch(`/api/v1/tasks/${ctx.taskId}`, { action: "grant", identityGrant: ["SOUL"] });
    expect(late.status).toBe(409);
  });
});

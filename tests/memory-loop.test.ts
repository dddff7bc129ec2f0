// The learning loop end to end over HTTP (no provider, keyword search): a failed
// task leaves a lesson, a lead injects a learning for one worker (invisible to
// the others), and the bundle of a related later task carries both in its
// prompt; completed tasks and session summaries become memory too.
import { beforeAll, describe, expect, it } from "vitest";
import { admin, client, createAgent, createWorkerToken } from "./support/client";

type Worker = { id: string; api: ReturnType<typeof client> };

async function worker(body: Record<string, unknown> = {}): Promise<Worker> {
  const agent = await createAgent(body);
  return { id: agent.id, api: client(await createWorkerToken(agent.id)) };
}

async function runTask(w: Worker, task: Record<string, unknown>) {
  const created = await admin().post("/api/v1/tasks", { ...task, agentId: w.id });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const polled = await w.api.get("/api/worker/poll?waitMs=0");
  expect(polled.status).toBe(200);
  expect(polled.body.task.id).toBe(created.body.task.id);
  const bundle = await w.api.get(`/api/worker/tasks/${polled.body.task.id}/bundle`);
  expect(bundle.status).toBe(200);
  return { id: polled.body.task.id as string, bundle: bundle.body };
}

async function memoriesOf(agentId: string, source: string) {
  const reply = await admin().get(`/api/v1/memories?agentId=${agentId}&source=${source}`);
  expect(reply.status).toBe(200);
  return reply.body.memories as { id: number; name: string; content: string; scope: string; source: string }[];
}

describe("the learning loop", () => {
  let alice: Worker;
  let bob: Worker;
  let lead: Worker;

  beforeAll(async () => {
    alice = await worker();
    bob = await worker();
    lead = await worker({ role: "lead" });
  });

  it("gives a related later task both the failure's lesson and the lead's learning, and nobody else", async () => {
    const first = await runTask(alice, {
      title: "Add a column to the invoices table",
      description: "Add a currency column to the billing database invoices table.",
    });
    const failed = await alice.api.post(`/api/worker/tasks/${first.id}/fail`, {
      failureReason:
        "The invoices migration locked the table for 10 minutes and checkout timed out. Backfill in batches instead of one UPDATE.",
    });
    expect(failed.status).toBe(200);
    const [lesson] = await memoriesOf(alice.id, "task_failure");
    expect(lesson?.content).toContain("Backfill in batches");
    expect(lesson?.content).toContain("This task failed. Learn from this to avoid repeating the mistake.");

    const learning = await lead.api.post("/api/worker/learnings", {
      targetAgentId: alice.id,
      category: "mistake-pattern",
      learning: "Run every invoices table migration against the staging billing database first and watch for table locks.",
    });
    expect(learning.status).toBe(201);

    const second = await runTask(alice, {
      title: "Add an index to the invoices table",
      description: "The billing database invoices table needs an index on customer_id; write the migration.",
    });
    const sources = second.bundle.memories.map((m: { source: string }) => m.source);
    expect(sources).toEqual(expect.arrayContaining(["task_failure", "lead_feedback"]));
    for (const memory of second.bundle.memories) {
      expect(memory.score).toBeGreaterThanOrEqual(0.4);
      expect(memory.score).toBeLessThanOrEqual(1);
    }
    expect(second.bundle.taskPrompt).toContain("## Relevant past context");
    expect(second.bundle.taskPrompt).toContain("Backfill in batches");
    expect(second.bundle.taskPrompt).toContain("staging billing database first");

    // Bob, on the same kind of task, gets neither (they are Alice's agent-scope memories).
    const bobs = await runTask(bob, {
      title: "Add an index to the invoices table",
      description: "The billing database invoices table needs an index on customer_id; write the migration.",
    });
    const bobIds = bobs.bundle.memories.map((m: { id: number }) => m.id);
    expect(bobIds).not.toContain(lesson?.id);
    expect(bobs.bundle.taskPrompt).not.toContain("Backfill in batches");
    const bobSearch = await bob.api.post("/api/worker/memories/search", { query: "invoices table migration staging locks" });
    expect(
      bobSearch.body.results.filter((r: { agentId: string; source: string }) => r.agentId === alice.id && r.source !== "task_completion"),
    ).toEqual([]);

    // Both workers finish (one task at a time each).
    expect((await alice.api.post(`/api/worker/tasks/${second.id}/complete`, { output: "Index added concurrently." })).status).toBe(200);
    expect((await bob.api.post(`/api/worker/tasks/${bobs.id}/complete`, { output: "Index added." })).status).toBe(200);

    // Each injection is recorded for retrieval health.
    const health = await admin().get("/api/v1/memories/health?days=1");
    expect(health.body.injectionsPerTask.tasks).toBeGreaterThanOrEqual(2);
  });

  it("keeps completed work (shared with the swarm for research); a worker's note is no session summary", async () => {
    const research = await runTask(alice, { title: "Research webhook retry policies", type: "research" });
    const done = await alice.api.post(`/api/worker/tasks/${research.id}/complete`, {
      output: "Stripe retries webhooks for 3 days with exponential backoff; make handlers idempotent by event id.",
      summary: "- Learned that the webhook handler must dedupe by event id.",
    });
    expect(done.status).toBe(200);
    const completions = await memoriesOf(alice.id, "task_completion");
    const scopes = completions.filter((m) => m.content.includes("Stripe retries webhooks")).map((m) => m.scope);
    expect(scopes.sort()).toEqual(["agent", "swarm"]);
    // Session summaries come from the session (tests/worker-session-summary.test.ts) through a summary
    // model; this server has none, so nothing is stored, and a task's own summary note never becomes one.
    const summaries = await memoriesOf(alice.id, "session_summary");
    expect(summaries.some((m) => m.content.includes("dedupe by event id"))).toBe(false);

    const routine = await runTask(alice, { title: "Bump a patch version" });
    await alice.api.post(`/api/worker/tasks/${routine.id}/complete`, {
      output: "Bumped the version to 1.2.4 and pushed.",
      summary: "No significant learnings.",
    });
    const after = await memoriesOf(alice.id, "session_summary");
    expect(after).toHaveLength(summaries.length);

    // Bob finds the swarm copy of Alice's research.
    const found = await bob.api.post("/api/worker/memories/search", { query: "webhook retries idempotent" });
    expect(
      found.body.results.some((r: { scope: string; content: string }) => r.scope === "swarm" && r.content.includes("Stripe retries")),
    ).toBe(true);
  });
});

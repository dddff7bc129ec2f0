// An agent's change to a built-in tool, on the real server: staged on a branch of
// the app's own git repository of built-ins, compiled and tested in the sandbox,
// merged into the agent's branch (main and other agents untouched) or abandoned
// with the reason; refused by the profile; recorded for operators and audited.
import { execFileSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { agentWithWorker, auditActions, current, userToken } from "./identity-helpers";
import { admin, client, server } from "./support/client";

const repo = () => path.join(server().dataDir, "builtin-tools");
const git = (...args: string[]) => execFileSync("git", args, { cwd: repo(), encoding: "utf8" }).trim();

const memorySearch = (body: string, description = "Search memory; I mostly need three results") => `import { z } from "zod";
export default {
  name: "memory_search",
  description: ${JSON.stringify(description)},
  inputSchema: z.object({ query: z.string().min(1) }),
  async execute(input: { query: string }) {
    ${body}
  },
};`;

describe("changing a built-in tool", { timeout: 120_000 }, () => {
  it("success: committed on a staging branch, tested, merged into the agent's branch; the agent's listing has it", async () => {
    const { agent, worker } = await agentWithWorker({ securityProfile: "power" });
    const source = memorySearch("return { query: input.query, limit: 3 };");
    const reply = await worker.post("/api/worker/builtin-tools", {
      name: "memory_search",
      source,
      testInput: { query: "deploys" },
      reason: "fewer results",
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    expect(reply.body).toMatchObject({
      name: "memory_search",
      status: "merged",
      branch: expect.stringMatching(new RegExp(`^staging/${agent.id}/memory_search-`)),
      commit: expect.stringMatching(/^[0-9a-f]{40}$/),
      testOutput: { query: "deploys", limit: 3 },
      error: null,
    });
    // Real git history: the agent's branch holds the change, main still the shipped tool, HEAD back on main.
    expect(git("rev-parse", `agents/${agent.id}`)).toBe(reply.body.commit);
    expect(git("show", `agents/${agent.id}:tools/memory_search.ts`)).toBe(source);
    expect(git("show", "main:tools/memory_search.ts")).toContain("return input;");
    expect(git("rev-parse", "--abbrev-ref", "HEAD")).toBe("main");
    expect(git("status", "--porcelain")).toBe("");

    const listing = await worker.get("/api/worker/tools");
    expect(listing.body.builtins).toEqual([
      expect.objectContaining({
        name: "memory_search",
        description: "Search memory; I mostly need three results",
        commit: reply.body.commit,
      }),
    ]);
    expect(await auditActions(agent.id)).toContain("tool.builtin_merged");
  });

  it("failure: abandoned with the reason; the agent's branch and listing stay as they were", async () => {
    const { agent, worker } = await agentWithWorker({ securityProfile: "standard" });
    const good = await worker.post("/api/worker/builtin-tools", {
      name: "memory_search",
      source: memorySearch("return { query: input.query };", "first change"),
      testInput: { query: "x" },
    });
    expect(good.status).toBe(201);
    const wrongArgs = await worker.post("/api/worker/builtin-tools", {
      name: "memory_search",
      source: memorySearch("return { question: input.query };", "broken change"),
      testInput: { query: "x" },
    });
    expect(wrongArgs.status).toBe(200);
    expect(wrongArgs.body).toMatchObject({
      status: "abandoned",
      error: expect.stringContaining("execute must return valid arguments for memory_search"),
    });
    const throws = await worker.post("/api/worker/builtin-tools", {
      name: "memory_search",
      source: memorySearch('throw new Error("nope");', "throwing change"),
      testInput: { query: "x" },
    });
    expect(throws.body).toMatchObject({ status: "abandoned", error: expect.stringContaining("nope") });
    const uncompilable = await worker.post("/api/worker/builtin-tools", {
      name: "memory_search",
      source: "export default {",
      testInput: {},
    });
    expect(uncompilable.body).toMatchObject({ status: "abandoned", error: expect.stringContaining("compile failed") });

    expect(git("rev-parse", `agents/${agent.id}`)).toBe(good.body.commit);
    expect(git("branch", "--list", `staging/${agent.id}/*`)).toBe("");
    expect((await worker.get("/api/worker/tools")).body.builtins).toEqual([expect.objectContaining({ description: "first change" })]);

    const changes = await admin().get(`/api/v1/agents/${agent.id}/builtin-tools`);
    expect(changes.status).toBe(200);
    expect(changes.body.changes.map((c: { status: string }) => c.status)).toEqual(["abandoned", "abandoned", "abandoned", "merged"]);
    expect(changes.body.changes[2]).toMatchObject({ branch: expect.stringContaining("staging/"), commit: expect.any(String), reason: "" });
  });

  it("paranoid: a tested change waits for an operator; rejected it stays out, approved it is staged and merged", async () => {
    const { agent, worker } = await agentWithWorker({ securityProfile: "paranoid" });
    const changes = async () => (await admin().get(`/api/v1/agents/${agent.id}/builtin-tools`)).body.changes;

    // A change that fails its test is not queued for review: the agent hears why at once.
    const broken = await worker.post("/api/worker/builtin-tools", {
      name: "memory_search",
      source: memorySearch('throw new Error("broken on purpose");'),
      testInput: { query: "x" },
    });
    expect(broken.status).toBe(200);
    expect(broken.body).toMatchObject({ status: "abandoned", branch: null, error: expect.stringContaining("broken on purpose") });

    const first = await worker.post("/api/worker/builtin-tools", {
      name: "memory_search",
      source: memorySearch("return { query: input.query, limit: 2 };", "two results"),
      testInput: { query: "flaky tests" },
      reason: "I only read the first two",
    });
    expect(first.status, JSON.stringify(first.body)).toBe(202);
    expect(first.body).toMatchObject({ status: "proposed", branch: null, commit: null, testOutput: { query: "flaky tests", limit: 2 } });
    // Nothing moved: no branch for the agent, no staging branch, the agent's listing has the shipped built-in.
    expect(git("branch", "--list", `agents/${agent.id}`, `staging/${agent.id}/*`)).toBe("");
    expect((await worker.get("/api/worker/tools")).body.builtins).toEqual([]);

    const path = `/api/v1/agents/${agent.id}/builtin-tools/${first.body.id}`;
    expect((await client((await userToken("viewer")).token).post(`${path}/approve`, {})).status).toBe(403);
    expect((await admin().post(`${path}/maybe`, {})).status).toBe(404);
    const rejected = await admin().post(`${path}/reject`, { note: "keep the default of five" });
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({ status: "rejected", review: { note: "keep the default of five" } });
    const again = await admin().post(`${path}/approve`, {});
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("conflict");
    expect(git("branch", "--list", `agents/${agent.id}`)).toBe("");
    expect((await worker.get("/api/worker/tools")).body.builtins).toEqual([]);

    const second = await worker.post("/api/worker/builtin-tools", {
      name: "memory_search",
      source: memorySearch("return { query: input.query, limit: 3 };", "three results"),
      testInput: { query: "deploys" },
    });
    expect(second.status).toBe(202);
    const approved = await admin().post(`/api/v1/agents/${agent.id}/builtin-tools/${second.body.id}/approve`, {});
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body).toMatchObject({
      status: "merged",
      branch: expect.stringMatching(new RegExp(`^staging/${agent.id}/memory_search-`)),
      commit: expect.stringMatching(/^[0-9a-f]{40}$/),
      review: { note: null },
    });
    expect(git("rev-parse", `agents/${agent.id}`)).toBe(approved.body.commit);
    expect(git("rev-parse", "--abbrev-ref", "HEAD")).toBe("main");
    expect((await worker.get("/api/worker/tools")).body.builtins).toEqual([
      expect.objectContaining({ name: "memory_search", description: "three results", commit: approved.body.commit }),
    ]);
    expect((await changes()).map((c: { status: string }) => c.status)).toEqual(["merged", "rejected", "abandoned"]);
    expect(await auditActions(agent.id)).toEqual(
      expect.arrayContaining(["tool.builtin_proposed", "tool.builtin_rejected", "tool.builtin_approved", "tool.builtin_abandoned"]),
    );
  });

  it("an archived agent's waiting change cannot be decided: 404 like the agent, nothing staged", async () => {
    const { agent, worker } = await agentWithWorker({ securityProfile: "paranoid" });
    const proposed = await worker.post("/api/worker/builtin-tools", {
      name: "memory_search",
      source: memorySearch("return { query: input.query, limit: 2 };"),
      testInput: { query: "x" },
    });
    expect(proposed.status, JSON.stringify(proposed.body)).toBe(202);
    expect((await admin().delete(`/api/v1/agents/${agent.id}`)).status).toBe(204);
    for (const decision of ["approve", "reject"]) {
      const reply = await admin().post(`/api/v1/agents/${agent.id}/builtin-tools/${proposed.body.id}/${decision}`, {});
      expect(reply.status, JSON.stringify(reply.body)).toBe(404);
      expect(reply.body.error.code).toBe("not_found");
    }
    expect(git("branch", "--list", `agents/${agent.id}`, `staging/${agent.id}/*`)).toBe("");
    expect(git("rev-parse", "--abbrev-ref", "HEAD")).toBe("main");
  });

  it("a new agent given an archived agent's name starts from the built-ins as shipped, not from the other's changes", async () => {
    const change = (limit: number) => ({
      name: "memory_search",
      source: memorySearch(`return { query: input.query, limit: ${limit} };`),
      testInput: { query: "deploys" },
      reason: `limit ${limit}`,
    });
    const before = await agentWithWorker({ securityProfile: "power" });
    const first = await before.worker.post("/api/worker/builtin-tools", change(2));
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect((await admin().delete(`/api/v1/agents/${before.agent.id}`)).status).toBe(204);

    const after = await agentWithWorker({ name: before.agent.name, securityProfile: "power" });
    expect(after.agent.name).toBe(before.agent.name);
    expect((await after.worker.get("/api/worker/tools")).body.builtins).toEqual([]);
    const second = await after.worker.post("/api/worker/builtin-tools", change(4));
    expect(second.status, JSON.stringify(second.body)).toBe(201);
    // Its branch is the shipped main and its one change; the archived agent's history stays where it was.
    expect(git("rev-parse", `agents/${after.agent.id}~1`)).toBe(git("rev-parse", "main"));
    expect(git("log", "--format=%s", `main..agents/${after.agent.id}`)).toBe(`${after.agent.name}: memory_search — limit 4`);
    expect(git("rev-parse", `agents/${before.agent.id}`)).toBe(first.body.commit);
    expect(git("show", `agents/${before.agent.id}:tools/memory_search.ts`)).toContain("limit: 2");
  });

  it("two agents changing built-ins at once: each change is merged into its own agent's branch, neither undoes the other", async () => {
    const first = await agentWithWorker({ securityProfile: "power" });
    const second = await agentWithWorker({ securityProfile: "power" });
    const change = (limit: number) => ({
      name: "memory_search",
      source: memorySearch(`return { query: input.query, limit: ${limit} };`),
      testInput: { query: "deploys" },
      reason: `limit ${limit}`,
    });
    // The second arrives while the first is being tested on its staging branch.
    const [a, b] = await Promise.all([
      first.worker.post("/api/worker/builtin-tools", change(2)),
      new Promise((resolve) => setTimeout(resolve, 150)).then(() => second.worker.post("/api/worker/builtin-tools", change(4))),
    ]);
    expect(a.status, JSON.stringify(a.body)).toBe(201);
    expect(b.status, JSON.stringify(b.body)).toBe(201);
    expect(git("rev-parse", `agents/${first.agent.id}`)).toBe(a.body.commit);
    expect(git("rev-parse", `agents/${second.agent.id}`)).toBe(b.body.commit);
    expect(git("show", `agents/${first.agent.id}:tools/memory_search.ts`)).toContain("limit: 2");
    expect(git("rev-parse", "--abbrev-ref", "HEAD")).toBe("main");
    expect(git("status", "--porcelain")).toBe("");
  });

  it("is tested on the app with no network, even where the agent's tools may use it: a change never reaches anything else", async () => {
    // A standard agent's tools may use the network (on its worker); the app's test of a built-in change runs on
    // the app's own machine, where a request would reach what only the app can (its loopback, its private network)
    // and hand the answer back to the agent in the test's output or error.
    const { agent, worker } = await agentWithWorker({ securityProfile: "standard" });
    expect((await worker.get("/api/worker/tools")).body.policy).toMatchObject({ changes: "apply", network: true });
    const health = `${server().baseUrl}/api/health`;
    const reply = await worker.post("/api/worker/builtin-tools", {
      name: "memory_search",
      source: memorySearch(`const answer = await (await fetch(${JSON.stringify(health)})).text();
    console.log(answer);
    return { query: answer };`),
      testInput: { query: "x" },
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({ status: "abandoned", error: expect.stringContaining("denied") });
    expect(JSON.stringify(reply.body)).not.toContain('"database"');
    expect(git("branch", "--list", `agents/${agent.id}`)).not.toBe("");
    expect(git("show", `agents/${agent.id}:tools/memory_search.ts`)).toContain("return input;");
  });

  it("follows capabilities, refuses what is not a built-in, and never touches another agent", async () => {
    const locked = await agentWithWorker({ securityProfile: "power" });
    const caps = await current(locked.agent.id, "capabilities");
    const put = await admin().put(`/api/v1/agents/${locked.agent.id}/identity/capabilities`, {
      content: `${caps.content}\nself_extension: off\n`,
      baseVersionId: caps.versionId,
      reason: "no tool changes",
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const refused = await locked.worker.post("/api/worker/builtin-tools", {
      name: "memory_search",
      source: memorySearch("return input;"),
      testInput: { query: "x" },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: "profile_forbids", message: expect.stringContaining("self_extension: off") });
    expect((await admin().get(`/api/v1/agents/${locked.agent.id}/builtin-tools`)).body.changes).toEqual([]);

    const { worker } = await agentWithWorker();
    const notBuiltin = await worker.post("/api/worker/builtin-tools", { name: "shout", source: "export default {}", testInput: {} });
    expect(notBuiltin.status).toBe(400);
    expect((await worker.get("/api/worker/tools")).body.builtins).toEqual([]);
    expect(git("branch", "--list", `agents/${locked.agent.id}`)).toBe("");
  });
});

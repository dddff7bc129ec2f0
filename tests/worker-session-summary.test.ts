import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURES, spawnWorker } from "../worker/test-support/run-worker";
import { type FakeOpenAI, startFakeOpenAI } from "./support/fake-openai";
import { startTestServer, type TestServer } from "./support/test-server";
import { agentWithToken, call, createTask, getTask, seedBareRepository } from "./worker-helpers";

let target: TestServer;
let fake: FakeOpenAI;
let root: string;
let origin: string;
const summaryPrompts: string[] = [];

beforeAll(async () => {
  fake = await startFakeOpenAI();
  fake.chatAnswer = (messages: Array<{ role: string; content: string }>) => {
    const user = messages.find((message) => message.role === "user")?.content ?? "";
    summaryPrompts.push(user);
    return user.includes("[tool Write]") ? "- Notes about tools belong in TOOLS.md" : "- The build fails on src/app.ts:12";
  };
  target = await startTestServer({
    env: { OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: "sk-fake", EMBEDDING_DIMENSIONS: "256", SUMMARY_MODEL: "fake-chat" },
  });
  root = mkdtempSync(path.join(tmpdir(), "swarmdeck-summary-"));
  origin = path.join(root, "origin.git");
  seedBareRepository(origin);
}, 600_000);
afterAll(async () => {
  await target?.stop();
  await fake?.stop();
  if (root) rmSync(root, { recursive: true, force: true });
});

async function summaries(agentId: string, count: number) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const reply = await call(target, "GET", `/api/v1/memories?source=session_summary&agentId=${agentId}`);
    if (reply.body.memories.length >= count || Date.now() > deadline) return reply.body.memories as Array<{ content: string }>;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe("session summaries", { timeout: 120_000 }, () => {
  it("summarise Claude Code's own session transcript, never the worker's git note", async () => {
    const agent = await agentWithToken(target);
    const taskId = await createTask(target, { title: "note the tools", agentId: agent.id });
    const run = spawnWorker(
      {
        SWARMDECK_URL: target.baseUrl,
        SWARMDECK_TOKEN: agent.token,
        WORKSPACE_DIR: path.join(root, "ada"),
        REPO_URL: origin,
        HARNESS: "claude",
        CLAUDE_BIN: path.join(FIXTURES, "bin", "claude"),
        CLAUDE_CONFIG_DIR: path.join(root, "claude-config"),
        REFLECTION: "off",
      },
      ["--once"],
    );
    expect(await run.exited, run.log()).toBe(0);
    expect((await getTask(target, taskId)).task.status, run.log()).toBe("completed");
    const stored = await summaries(agent.id, 1);
    expect(stored.map((memory) => memory.content)).toEqual(["- Notes about tools belong in TOOLS.md"]);
    // What the model read: the transcript's messages and tool use, as Claude Code recorded them.
    const prompt = summaryPrompts.find((text) => text.includes("[tool Write]"))!;
    expect(prompt).toContain("User: # Task: note the tools");
    expect(prompt).toMatch(/\[tool Write\] \{"file_path":"[^"]*\/ada\/home\/TOOLS\.md"/);
    expect(prompt).toContain("[tool result] The file");
    expect(prompt).toContain("Assistant: fake claude result");
    expect(prompt).not.toContain("merged task-");
  });

  it("summarise a command agent's captured output", async () => {
    const agent = await agentWithToken(target);
    const taskId = await createTask(target, { title: "compile", agentId: agent.id });
    const run = spawnWorker(
      {
        SWARMDECK_URL: target.baseUrl,
        SWARMDECK_TOKEN: agent.token,
        WORKSPACE_DIR: path.join(root, "bob"),
        AGENT_COMMAND: path.join(FIXTURES, "agents", "fail.sh"),
      },
      ["--once"],
    );
    expect(await run.exited, run.log()).toBe(0);
    expect((await getTask(target, taskId)).task.status).toBe("failed");
    const stored = await summaries(agent.id, 1);
    expect(stored.map((memory) => memory.content)).toEqual(["- The build fails on src/app.ts:12"]);
    expect(summaryPrompts.some((text) => text.includes("the tests do not compile (src/app.ts:12)"))).toBe(true);
  });
});

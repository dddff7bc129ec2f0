// Self-extension over MCP, end to end: the real app, a real worker process running
// the Claude harness (the fake CLI reads the --mcp-config the worker wrote), and a
// scripted agent speaking MCP with the SDK's client to `swarm mcp`. It writes a tool,
// calls it in the same session, updates it, sees a failing tool refused with its
// error, deletes one; a second worker on another workspace finds the tools again.
import { readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { FIXTURES, spawnWorker } from "../worker/test-support/run-worker";
import { server } from "./support/client";
import { agentWithToken, call, createTask, getTask, type Target, tempDirs } from "./worker-helpers";

let target: Target;
const tempDir = tempDirs("mcp");
beforeAll(() => {
  target = server();
});

async function runScenario(agent: { id: string; token: string }, scenario: "author" | "reuse" | "lead" | "oversized") {
  const report = path.join(tempDir(), "report.json");
  const claudeReport = path.join(tempDir(), "claude.jsonl");
  const taskId = await createTask(target, { title: `tools: ${scenario}`, agentId: agent.id });
  const run = spawnWorker({
    SWARMDECK_URL: target.baseUrl,
    SWARMDECK_TOKEN: agent.token,
    WORKSPACE_DIR: tempDir(),
    HARNESS: "claude",
    CLAUDE_BIN: path.join(FIXTURES, "bin", "claude"),
    CLAUDE_CONFIG_DIR: tempDir(),
    FAKE_CLAUDE_MCP_AGENT: path.join(FIXTURES, "agents", "mcp-agent.mjs"),
    FAKE_CLAUDE_REPORT_FILE: claudeReport,
    MCP_SCENARIO: scenario,
    MCP_REPORT_FILE: report,
    REFLECTION: "off",
  });
  expect(await run.exited, run.log()).toBe(0);
  const { task } = await getTask(target, taskId);
  expect(task.status, run.log()).toBe("completed");
  const claude = JSON.parse(readFileSync(claudeReport, "utf8").trim().split("\n")[0] ?? "{}");
  return { taskId, claude, report: JSON.parse(readFileSync(report, "utf8")), log: run.log() };
}

describe("agent-authored tools over MCP through the real worker and app", { timeout: 240_000 }, () => {
  it("writes, calls, updates, refuses, deletes; a second worker finds the tools again", async () => {
    const agent = await agentWithToken(target, { securityProfile: "standard" });
    const first = await runScenario(agent, "author");
    const r = first.report;

    // Claude Code was given Swarmdeck's MCP server and allowed its tools.
    expect(first.claude.mcpServers).toEqual(["swarm"]);
    expect(first.claude.allowedTools).toContain("mcp__swarm");
    expect(r.initial).toEqual(
      expect.arrayContaining([
        "identity_read",
        "identity_write",
        "memory_search",
        "task_progress",
        "task_release",
        "tool_write",
        "tool_delete",
        "tool_list",
      ]),
    );
    expect(r.initial).not.toContain("shout");
    expect(r.initial).not.toContain("swarm_tasks");

    // Written, announced with tools/list_changed, and callable in the same session.
    expect(r.v1).toMatchObject({ isError: false, notified: true });
    expect(r.v1.listed).toContain("shout");
    expect(JSON.parse(r.callV1.text)).toEqual({ shouted: "HELLO" });
    expect(r.v2).toMatchObject({ isError: false, notified: true });
    expect(JSON.parse(r.callV2.text)).toEqual({ shouted: "HELLO!" });
    // A figure for the record (not asserted): tool_write called → the new tool in tools/list.
    console.log(`tool_write → registered: v1 ${r.v1.registeredMs} ms, v2 ${r.v2.registeredMs} ms`);
    expect(r.badInput).toMatchObject({ isError: true, text: expect.stringContaining("invalid_input") });

    // A tool failing its test is refused with the error and its output, and never registered.
    expect(r.broken.isError).toBe(true);
    expect(r.broken.text).toContain("cannot shout today");
    expect(r.broken.text).toContain("about to fail");
    expect(r.broken.listed).not.toContain("broken");
    expect(r.uncompilable).toMatchObject({ isError: true, text: expect.stringContaining("compile_failed") });
    expect(r.builtinName).toMatchObject({ isError: true, text: expect.stringContaining("my_memory_search") });

    // Deleted: unregistered, announced.
    expect(r.deleted.isError).toBe(false);
    expect(r.deletedNotified).toBe(true);
    expect(r.afterDelete).not.toContain("scratch");
    expect(r.toolList.tools.map((t: { name: string }) => t.name)).toEqual(["shout"]);

    // A built-in changed for this agent (git staging in the app): listed as changed, called through the agent's version.
    expect(r.builtin).toMatchObject({ isError: false, notified: true });
    expect(r.builtinListed).toBe("Search what I learned (three results)");
    expect(r.builtinCall.isError).toBe(false);
    expect(JSON.parse(r.builtinCall.text)).toHaveProperty("results");

    // The app kept what lasts: two versions of shout from this task, the failing tool nowhere.
    const tools = await call(target, "GET", `/api/v1/agents/${agent.id}/tools`);
    expect(tools.body.tools.map((t: { name: string; deleted: boolean }) => [t.name, t.deleted])).toEqual([
      ["shout", false],
      ["scratch", true],
    ]);
    const shout = await call(target, "GET", `/api/v1/agents/${agent.id}/tools/shout`);
    expect(shout.body.versions).toHaveLength(2);
    expect(shout.body.versions[0]).toMatchObject({
      version: 2,
      taskId: first.taskId,
      testInput: { text: "hi" },
      testOutput: { shouted: "HI!" },
      reason: "louder",
    });
    expect(shout.body.callCount).toBe(3);
    expect(shout.body.failureCount).toBe(1);

    // Another worker (another workspace, a new session) finds the tool, over MCP and with the CLI.
    const second = await runScenario(agent, "reuse");
    expect(second.report.initial).toContain("shout");
    expect(second.report.initial).not.toContain("scratch");
    expect(JSON.parse(second.report.call.text)).toEqual({ shouted: "AGAIN!" });
    expect(second.report.cli).toEqual({ shouted: "CLI!" });
    expect(second.report.cliList).toContain("shout  v2  Upper-cases a text");
  });

  it("answers the calls after one that was too big for the worker", async () => {
    const agent = await agentWithToken(target);
    const { report } = await runScenario(agent, "oversized");
    expect(report.tooBig).toMatchObject({ isError: true, text: expect.stringContaining("payload_too_large") });
    expect(report.after).toEqual({ isError: false, text: expect.stringContaining("true") });
    expect(report.again.isError).toBe(false);
    expect(JSON.parse(report.again.text)).toHaveProperty("results");
  });

  it("serves the lead's tools to a lead agent only", async () => {
    const lead = await agentWithToken(target, { role: "lead" });
    const waiting = await createTask(target, { title: "waiting for someone" });
    const { report, taskId } = await runScenario(lead, "lead");
    expect(report.initial).toEqual(expect.arrayContaining(["swarm_tasks", "swarm_agents", "swarm_report", "swarm_failures", "learn"]));
    expect(report.agents.isError).toBe(false);
    expect(report.agents.text).toContain(lead.name);
    expect(report.tasks.isError).toBe(false);
    expect(report.tasks.text).toContain(taskId);
    // A refused argument is named, with what the app takes instead.
    expect(report.badSince.isError).toBe(true);
    expect(report.badSince.text).toMatch(/since: .*"24h"/);
    // One task a page: the second page goes on after the first, as the CLI's --cursor does.
    const [first, second] = report.pages;
    expect(first.tasks.map((t: { id: string }) => t.id)).toEqual([taskId]);
    expect(first.nextCursor).toBeTruthy();
    expect(second.tasks.map((t: { id: string }) => t.id)).toEqual([waiting]);
  });
});

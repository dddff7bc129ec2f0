// The whole loop: the real app (global setup), a real worker process with
// `--once`, and scripted agents that edit their own identity and setup script.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SETUP_MARKER_END, SETUP_MARKER_START } from "../lib/setup-script/compose";
import { FIXTURES, spawnWorker } from "../worker/test-support/run-worker";
import { server } from "./support/client";
import { agentWithToken, call, createTask, getTask, identity, setGlobalSetupScript, type Target, waitForTask } from "./worker-helpers";

let target: Target;
const workspaces: string[] = [];
const fixtureAgent = (name: string) => path.join(FIXTURES, "agents", name);
const count = (text: string, needle: string) => text.split(needle).length - 1;

function workspace() {
  const dir = mkdtempSync(path.join(tmpdir(), "swarmdeck-loop-"));
  workspaces.push(dir);
  return dir;
}

function worker(token: string, dir: string, env: Record<string, string>, args = ["--once"]) {
  return spawnWorker({ SWARMDECK_URL: target.baseUrl, SWARMDECK_TOKEN: token, WORKSPACE_DIR: dir, POLL_WAIT_MS: "2000", ...env }, args);
}

let previousGlobal: string | null = null;
beforeAll(async () => {
  target = server();
  // The server is shared with other test files: the global script is put back afterwards.
  const before = await call(target, "GET", "/api/v1/config?scope=global&key=SETUP_SCRIPT");
  previousGlobal = before.body.entries?.[0]?.value ?? null;
  await setGlobalSetupScript(target, '#!/bin/bash\necho "global script ran" >> setup-runs.log');
});
afterAll(async () => {
  for (const dir of workspaces) rmSync(dir, { recursive: true, force: true });
  if (previousGlobal !== null) await setGlobalSetupScript(target, previousGlobal);
  else await call(target, "DELETE", "/api/v1/config?scope=global&key=SETUP_SCRIPT");
});

describe("worker full loop", { timeout: 120_000 }, () => {
  it("runs a task end to end: output, TOOLS.md version, SOUL.md proposal, clean setup script; a second task keeps one block", async () => {
    const agent = await agentWithToken(target, { securityProfile: "standard" });
    const dir = workspace();
    const soulBefore = await identity(target, agent.id, "soul");
    const setupBefore = await identity(target, agent.id, "setup-script");
    // The operator grants this task the setup script (an explicit request); SOUL.md stays agent-proposed.
    const first = await createTask(target, { title: "learn the build", agentId: agent.id, identityGrant: ["SETUP_SCRIPT"] });

    const run = worker(agent.token, dir, { AGENT_COMMAND: fixtureAgent("edit-identity.sh") });
    expect(await run.exited, run.log()).toBe(0);

    const done = await getTask(target, first);
    expect(done.task.status, run.log()).toBe("completed");
    expect(done.task.output).toContain(`agent output for ${first}`);
    expect(done.task.output).toContain("prompt began with: # Task: learn the build");

    const tools = await identity(target, agent.id, "tools");
    expect(tools.content).toContain(`ripgrep is installed by the setup script (task ${first})`);
    const toolVersions = await call(target, "GET", `/api/v1/agents/${agent.id}/identity/tools/versions`);
    expect(toolVersions.body.versions[0]).toMatchObject({ authorType: "agent", taskId: first });

    // Standard profile: the SOUL.md edit waits for an operator; SOUL.md itself is unchanged.
    const proposals = await call(target, "GET", `/api/v1/proposals?status=pending&agentId=${agent.id}`);
    expect(proposals.body.proposals).toHaveLength(1);
    expect(proposals.body.proposals[0]).toMatchObject({ kind: "SOUL", trigger: "agent", taskId: first });
    const proposal = await call(target, "GET", `/api/v1/proposals/${proposals.body.proposals[0].id}`);
    expect(JSON.stringify(proposal.body)).toContain(`I double-check my work (task ${first})`);
    expect((await identity(target, agent.id, "soul")).content).toBe(soulBefore.content);

    // The stored setup script (granted, so applied): the agent's line only, no markers, no global content.
    const setup = await identity(target, agent.id, "setup-script");
    const added = `echo "agent added line ran" >> setup-runs.log # agent-added-${first}`;
    expect(setup.content.trim()).toBe([setupBefore.content.trim(), added].filter(Boolean).join("\n"));
    expect(setup.content).not.toContain("# ===");
    expect(setup.content).not.toContain("global script ran");
    expect(readFileSync(path.join(dir, "project", "setup-runs.log"), "utf8")).toBe("global script ran\n");

    // The task's timeline shows what the sync did (200 applied, 202 queued).
    const syncEvents = done.events.filter((event: { type: string }) => event.type === "sync");
    expect(syncEvents.map((event: { data: { httpStatus: number } }) => event.data.httpStatus).sort()).toEqual([200, 200, 202]);

    // memory/ files became memories: the agent's own, and memory/shared/ for the whole swarm
    // (both of this agent: the same files of other tests' agents are on the shared server too).
    const memories = await call(target, "GET", `/api/v1/memories?source=file_index&agentId=${agent.id}&limit=200`);
    expect(memories.status, JSON.stringify(memories.body)).toBe(200);
    const mine = memories.body.memories.filter((m: { content: string }) => m.content.includes(first) || m.content.includes("staging DB"));
    expect(mine.map((m: { scope: string; agentId: string | null }) => m.scope).sort()).toEqual(["agent", "swarm"]);

    // Second task: exactly one marker block, and both scripts run again.
    const second = await createTask(target, { title: "again", agentId: agent.id });
    const again = worker(agent.token, dir, { AGENT_COMMAND: fixtureAgent("edit-identity.sh") });
    expect(await again.exited, again.log()).toBe(0);
    expect((await getTask(target, second)).task.status, again.log()).toBe("completed");
    const startup = readFileSync(path.join(dir, "home", "start-up.sh"), "utf8");
    expect(count(startup, SETUP_MARKER_START)).toBe(1);
    expect(count(startup, SETUP_MARKER_END)).toBe(1);
    expect(count(startup, "global script ran")).toBe(1);
    expect(readFileSync(path.join(dir, "project", "setup-runs.log"), "utf8")).toBe(
      "global script ran\nglobal script ran\nagent added line ran\n",
    );
  });

  it("gives the agent a swarm CLI that reaches the app with the worker's credentials", async () => {
    const agent = await agentWithToken(target, { securityProfile: "standard" });
    const taskId = await createTask(target, { title: "use the cli", agentId: agent.id });
    const run = worker(agent.token, workspace(), { AGENT_COMMAND: fixtureAgent("swarm-cli.sh") });
    expect(await run.exited, run.log()).toBe(0);
    const { task, events } = await getTask(target, taskId);
    expect(task.status, run.log()).toBe("completed");
    expect(task.output).toMatch(/proposed: soul waits for an operator's review \(proposal \S+\)/);
    expect(task.output).toContain("stored: 1 chunk(s)");
    expect(task.output).toContain("pnpm is faster here");
    expect(task.output).toContain("locked exit: 1");
    expect(task.output).toContain("usage exit: 2");
    expect(JSON.stringify(events)).toContain("reading the code base");
    const proposals = await call(target, "GET", `/api/v1/proposals?status=pending&agentId=${agent.id}`);
    expect(proposals.body.proposals).toEqual([expect.objectContaining({ kind: "SOUL", reason: "be kinder", taskId })]);
  });

  it("fails the task with a reason when the agent fails", async () => {
    const agent = await agentWithToken(target);
    const taskId = await createTask(target, { title: "doomed", agentId: agent.id });
    const run = worker(agent.token, workspace(), { AGENT_COMMAND: fixtureAgent("fail.sh") });
    expect(await run.exited, run.log()).toBe(0);
    const { task } = await getTask(target, taskId);
    expect(task.status).toBe("failed");
    expect(task.failureReason).toMatch(/the agent exited with code 3/);
    expect(task.failureReason).toContain("the tests do not compile (src/app.ts:12)");
  });

  it("stops the agent when an operator cancels the task", async () => {
    const agent = await agentWithToken(target);
    const dir = workspace();
    const signalFile = path.join(dir, "..", `${path.basename(dir)}.signal`);
    workspaces.push(signalFile);
    const taskId = await createTask(target, { title: "long one", agentId: agent.id });
    const run = worker(agent.token, dir, {
      AGENT_COMMAND: fixtureAgent("sleep.sh"),
      AGENT_SIGNAL_FILE: signalFile,
      HEARTBEAT_INTERVAL_MS: "300",
    });
    await run.waitFor("agent started");
    const cancel = await call(target, "PATCH", `/api/v1/tasks/${taskId}`, { action: "cancel", reason: "not needed" });
    expect(cancel.status, JSON.stringify(cancel.body)).toBe(200);
    expect(await run.exited, run.log()).toBe(0);
    expect(run.log()).toContain("the task was cancelled");
    expect(readFileSync(signalFile, "utf8")).toContain("got SIGTERM");
    expect((await getTask(target, taskId)).task.status).toBe("cancelled");
  });

  it("runs the post-task reflection: a continued Claude session's lesson becomes a reflection memory of the task", async () => {
    const agent = await agentWithToken(target);
    const dir = workspace();
    const claudeHome = workspace();
    const taskId = await createTask(target, { title: "tune the build", agentId: agent.id });
    const lesson = `- The build needs NODE_OPTIONS=--max-old-space-size=4096 (reflection ${taskId})`;
    const run = worker(agent.token, dir, {
      HARNESS: "claude",
      CLAUDE_BIN: path.join(FIXTURES, "bin", "claude"),
      CLAUDE_CONFIG_DIR: claudeHome,
      FAKE_CLAUDE_REFLECTION: lesson,
      FAKE_CLAUDE_REFLECTION_FILE: "memory/build-lessons.md",
    });
    expect(await run.exited, run.log()).toBe(0);
    const { task } = await getTask(target, taskId);
    expect(task.status, run.log()).toBe("completed");
    // The task keeps the task run's output; the reflection went to memory.
    expect(task.output).toMatch(/^fake claude result /);
    expect(task.output).not.toContain("NODE_OPTIONS");

    const reflections = await call(target, "GET", `/api/v1/memories?source=reflection&agentId=${agent.id}`);
    expect(reflections.status, JSON.stringify(reflections.body)).toBe(200);
    expect(reflections.body.memories).toHaveLength(1);
    const memory = reflections.body.memories[0];
    expect(memory).toMatchObject({
      name: "Reflection: tune the build",
      content: lesson,
      scope: "agent",
      source: "reflection",
      agentId: agent.id,
    });
    const detail = await call(target, "GET", `/api/v1/memories/${memory.id}`);
    expect(detail.body.memory).toMatchObject({ sourceTaskId: taskId });
    // The file the reflection wrote under memory/ was indexed as well.
    const files = await call(target, "GET", `/api/v1/memories?source=file_index&agentId=${agent.id}`);
    expect(files.body.memories).toContainEqual(expect.objectContaining({ content: expect.stringContaining(lesson), scope: "agent" }));
    // And the agent finds its lesson by searching.
    const found = await call(target, "POST", "/api/v1/memories/search", {
      query: "build memory NODE_OPTIONS",
      agentId: agent.id,
      mode: "keyword",
    });
    expect(found.body.results.map((r: { source: string }) => r.source)).toContain("reflection");
  });

  it("reflects on a failed task with REFLECTION_COMMAND, and the task stays failed with its own reason", async () => {
    const agent = await agentWithToken(target);
    const taskId = await createTask(target, { title: "compile it", agentId: agent.id });
    const run = worker(agent.token, workspace(), {
      AGENT_COMMAND: fixtureAgent("fail.sh"),
      REFLECTION_COMMAND: fixtureAgent("reflect.sh"),
    });
    expect(await run.exited, run.log()).toBe(0);
    const { task } = await getTask(target, taskId);
    expect(task.status).toBe("failed");
    expect(task.failureReason).toMatch(/^the agent exited with code 3/);
    const reflections = await call(target, "GET", `/api/v1/memories?source=reflection&agentId=${agent.id}`);
    expect(reflections.body.memories).toEqual([
      expect.objectContaining({ name: "Reflection: compile it", scope: "agent", source: "reflection", agentId: agent.id }),
    ]);
    expect(reflections.body.memories[0].content).toContain("- The task failed; its output began with: working on it");
  });

  it("gives the task back when the worker gets SIGTERM mid-task", async () => {
    const agent = await agentWithToken(target);
    const taskId = await createTask(target, { title: "interrupted", agentId: agent.id });
    const run = worker(agent.token, workspace(), { AGENT_COMMAND: fixtureAgent("sleep.sh") }, []);
    await run.waitFor("agent started");
    run.child.kill("SIGTERM");
    expect(await run.exited, run.log()).toBe(0);
    const { task, events } = await waitForTask(target, taskId, (t) => t.status !== "in_progress");
    expect(task.status).toBe("pending");
    expect(JSON.stringify(events)).toContain("the worker was stopped before the task finished");
  });

  it("gives the task back when `npm run worker` itself gets SIGTERM: npm hands it to the worker, which never outlives it", async () => {
    const agent = await agentWithToken(target);
    const taskId = await createTask(target, { title: "interrupted through npm", agentId: agent.id });
    const run = spawnWorker(
      { SWARMDECK_URL: target.baseUrl, SWARMDECK_TOKEN: agent.token, WORKSPACE_DIR: workspace(), AGENT_COMMAND: fixtureAgent("sleep.sh") },
      [],
      { viaNpm: true },
    );
    await run.waitFor("agent started");
    run.child.kill("SIGTERM");
    // The worker writes to npm's output: it closes only once the worker process itself has exited.
    await run.exited;
    expect(run.log()).toContain("SIGTERM: stopping");
    const { task, events } = await waitForTask(target, taskId, (t) => t.status !== "in_progress");
    expect(task.status).toBe("pending");
    expect(JSON.stringify(events)).toContain("the worker was stopped before the task finished");
  });
});

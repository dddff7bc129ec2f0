// Two real worker processes against the real app on a real project repository (a
// bare remote) that tracks its own CLAUDE.md, AGENT.md, TOOLS.md, USER.md,
// start-up.sh and memory/: the agents change themselves and the code, and only
// the code reaches main; the project's own files stay byte-for-byte as they were.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURES, spawnWorker } from "../worker/test-support/run-worker";
import { server } from "./support/client";
import { agentWithToken, call, createTask, getTask, identity, type Target, waitForTask } from "./worker-helpers";

let target: Target;
let root: string;
let origin: string;
let seedSha: string;
const sh = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();

/** The project's own files with the names the worker's files have. */
const PROJECT_FILES: Record<string, string> = {
  "CLAUDE.md": "# Project rules\nRun `make test` before you push.\n",
  "AGENT.md": "# The project's AGENT.md (documentation of its agent API)\n",
  "TOOLS.md": "# Project tooling\n- make\n",
  "USER.md": "# User guide\n",
  "start-up.sh": '#!/bin/sh\necho "the project\'s own start-up script"\n',
  "memory/README.md": "# memory/ is the project's cache module\n",
  "app.txt": "line 1\n",
};

beforeAll(() => {
  target = server();
  root = mkdtempSync(path.join(tmpdir(), "swarmdeck-repo-"));
  origin = path.join(root, "origin.git");
  execFileSync("git", ["init", "--quiet", "--bare", "--initial-branch=main", origin]);
  const seed = path.join(root, "seed");
  sh(root, "clone", "--quiet", origin, seed);
  for (const [file, content] of Object.entries(PROJECT_FILES)) {
    mkdirSync(path.dirname(path.join(seed, file)), { recursive: true });
    writeFileSync(path.join(seed, file), content);
  }
  sh(seed, "add", ".");
  sh(seed, "-c", "user.name=seed", "-c", "user.email=seed@test.local", "commit", "--quiet", "-m", "the project");
  sh(seed, "push", "--quiet", "origin", "HEAD:main");
  seedSha = sh(seed, "rev-parse", "HEAD");
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function startWorker(token: string, name: string, env: Record<string, string>, args: string[] = []) {
  return spawnWorker(
    { SWARMDECK_URL: target.baseUrl, SWARMDECK_TOKEN: token, WORKSPACE_DIR: path.join(root, name), REPO_URL: origin, ...env },
    args,
  );
}

function expectProjectFilesUntouched() {
  for (const [file, content] of Object.entries(PROJECT_FILES)) expect(`${sh(origin, "show", `main:${file}`)}\n`, file).toBe(content);
}

describe("workers in a real repository", { timeout: 180_000 }, () => {
  it("two workers change themselves and the code: only the code is committed, the project's own files are unchanged", async () => {
    const ada = await agentWithToken(target, { securityProfile: "power" });
    const bob = await agentWithToken(target, { securityProfile: "power" });
    const tasks: string[] = [];
    for (const agent of [ada, bob, ada, bob]) tasks.push(await createTask(target, { title: `code ${tasks.length}`, agentId: agent.id }));

    const agentCommand = path.join(FIXTURES, "agents", "repo-coder.sh");
    const workers = [
      startWorker(ada.token, "ada", { AGENT_COMMAND: agentCommand }),
      startWorker(bob.token, "bob", { AGENT_COMMAND: agentCommand }),
    ];
    for (const taskId of tasks)
      await waitForTask(target, taskId, (task) => task.status !== "pending" && task.status !== "in_progress", 90_000);
    for (const run of workers) run.child.kill("SIGTERM");
    const logs = workers.map((run) => run.log()).join("\n");
    for (const run of workers) expect(await run.exited, logs).toBe(0);

    for (const taskId of tasks) {
      const { task } = await getTask(target, taskId);
      expect(task.status, logs).toBe("completed");
      // The agent worked in the checkout: the CLAUDE.md it saw there is the project's.
      expect(task.output).toContain("project rules: # Project rules");
      expect(task.output).toMatch(/merged task-\S+ into main at [0-9a-f]{12}/);
    }

    // main: the project's files byte-for-byte, plus exactly one code change per task
    // these two workers completed: the four above, and any pool task another test
    // file left on the shared server that one of them took after its own.
    expectProjectFilesUntouched();
    const completed: string[] = [];
    for (const agent of [ada, bob]) {
      const { body } = await call(target, "GET", `/api/v1/tasks?agentId=${agent.id}&status=completed&limit=100`);
      completed.push(...body.tasks.map((task: { id: string }) => task.id));
    }
    expect(completed).toEqual(expect.arrayContaining(tasks));
    const changed = sh(origin, "diff", "--name-only", `${seedSha}..main`).split("\n").sort();
    expect(changed).toEqual(completed.map((id) => `change-${id}.txt`).sort());
    expect(sh(origin, "log", "--format=%s", `${seedSha}..main`).split("\n")).toHaveLength(completed.length);

    // The agents' own edits reached the app as new versions (power profile: applied), not the repository.
    for (const [agent, own] of [
      [ada, [tasks[0], tasks[2]]],
      [bob, [tasks[1], tasks[3]]],
    ] as const) {
      const tools = await identity(target, agent.id, "tools");
      for (const taskId of own) expect(tools.content).toContain(`- learned in ${taskId}`);
      expect(tools.content).not.toContain("# Project tooling");
      const user = await identity(target, agent.id, "user");
      expect(user.content).toContain(`- user note ${own[0]}`);
    }
    // The worker's files are where SWARMDECK_HOME says, beside the checkout.
    expect(readFileSync(path.join(root, "ada", "home", "TOOLS.md"), "utf8")).toContain(`- learned in ${tasks[2]}`);
    expect(readFileSync(path.join(root, "ada", "project", "TOOLS.md"), "utf8")).toBe(PROJECT_FILES["TOOLS.md"]);
  });

  it("a build that makes and removes folders as fast as it can does not end the worker", async () => {
    const agent = await agentWithToken(target, { securityProfile: "power" });
    const taskId = await createTask(target, { title: "churn", agentId: agent.id });
    const run = startWorker(agent.token, "dana", { AGENT_COMMAND: path.join(FIXTURES, "agents", "build-churn.sh") }, ["--once"]);
    expect(await run.exited, run.log()).toBe(0);
    const { task } = await getTask(target, taskId);
    expect(task.status, run.log()).toBe("completed");
    expect(task.output).toContain("built 300 times");
    expect(task.output).toMatch(/merged task-\S+ into main at [0-9a-f]{12}/);
    expect(sh(origin, "show", `main:built-${taskId}.txt`)).toBe(`built from ${taskId}`);
    expect(run.log()).not.toMatch(/Unhandled|ENOENT/);
  });

  it("Claude Code runs in the checkout and loads both the project's CLAUDE.md and the agent's", async () => {
    const agent = await agentWithToken(target, { securityProfile: "power" });
    const current = await identity(target, agent.id, "claude");
    const put = await call(target, "PUT", `/api/v1/agents/${agent.id}/identity/claude`, {
      content: "# Agent instructions: always write tests first\n",
      baseVersionId: current.versionId,
      reason: "test",
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const taskId = await createTask(target, { title: "with claude", agentId: agent.id });
    const claudeHome = path.join(root, "claude-config");
    const run = startWorker(
      agent.token,
      "carol",
      { HARNESS: "claude", CLAUDE_BIN: path.join(FIXTURES, "bin", "claude"), CLAUDE_CONFIG_DIR: claudeHome, REFLECTION: "off" },
      ["--once"],
    );
    expect(await run.exited, run.log()).toBe(0);
    const { task } = await getTask(target, taskId);
    expect(task.status, run.log()).toBe("completed");
    const report = JSON.parse(/fake claude result (.*)/.exec(task.output)![1]!);
    const home = path.join(root, "carol", "home");
    expect(report.cwd).toBe(path.join(root, "carol", "project"));
    expect(report.addDirs).toEqual([home]);
    expect(report.claudeMd).toEqual([
      { file: path.join(root, "carol", "project", "CLAUDE.md"), firstLine: "# Project rules" },
      { file: path.join(home, "CLAUDE.md"), firstLine: "# Agent instructions: always write tests first" },
    ]);
    // Its edit (the agent's TOOLS.md, in its home) was synced; nothing of it reached main.
    expect((await identity(target, agent.id, "tools")).content).toContain("- noted by fake claude");
    expectProjectFilesUntouched();
  });
});

// What an agent and the project's ./verify.sh leave running when they end (worker/README.md,
// "What the agent leaves running"): the real worker on a local bare repository. A
// background process that still holds the output the worker reads used to keep the
// task "running" until it ended by itself or the task's time limit gave the task back.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { isRunning } from "../worker/test-support/processes";
import { spawnWorker } from "../worker/test-support/run-worker";
import { server } from "./support/client";
import { agentWithToken, createTask, getTask, seedBareRepository, type Target } from "./worker-helpers";

let target: Target;
let root: string;
let origin: string;
const sh = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();

const pidIn = (file: string) => Number(readFileSync(file, "utf8").trim());

function workerEnv(token: string, agentCommand: string) {
  return {
    SWARMDECK_URL: target.baseUrl,
    SWARMDECK_TOKEN: token,
    WORKSPACE_DIR: path.join(root, "ws"),
    REPO_URL: origin,
    AGENT_COMMAND: agentCommand,
    REFLECTION: "off",
  };
}

beforeAll(() => {
  target = server();
});
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), "swarmdeck-background-"));
  origin = path.join(root, "origin.git");
  seedBareRepository(origin);
});
afterEach(() => {
  // A failed run may leave the sleeps behind: not for the next test.
  for (const file of ["group.pid", "session.pid", "verify.pid", "verify-session.pid"].map((name) => path.join(root, name))) {
    if (!existsSync(file)) continue;
    try {
      process.kill(pidIn(file), "SIGKILL");
    } catch {}
  }
  rmSync(root, { recursive: true, force: true });
});

describe("what an agent leaves running", { timeout: 120_000 }, () => {
  it("ends with the agent: the task completes with its change merged, and nothing it started in the background, in its group or a session of its own, still runs", async () => {
    const agent = await agentWithToken(target);
    // A task limit of a minute: without the fix the worker waited for the sleeps and the limit gave the task back.
    const taskId = await createTask(target, { title: "start something and leave", agentId: agent.id, timeLimitMinutes: 1 });
    const group = path.join(root, "group.pid");
    const session = path.join(root, "session.pid");
    // Both sleeps keep the agent's stdout and stderr (the worker's pipes) open.
    const command = [
      "cat > /dev/null",
      `sleep 300 & echo $! > ${group}`,
      // Its pid written from inside the new session: the agent exits only once it has left the group.
      `setsid sh -c 'echo $$ > ${session}; exec sleep 301' &`,
      `while [ ! -s ${session} ]; do sleep 0.05; done`,
      'echo "from the agent" > "left-$SWARMDECK_TASK_ID.txt"',
      "echo started two sleeps",
    ].join("\n");
    const run = spawnWorker(workerEnv(agent.token, command));
    expect(await run.exited, run.log()).toBe(0);
    const { task } = await getTask(target, taskId);
    expect(task.status, run.log()).toBe("completed");
    expect(task.output).toContain("started two sleeps");
    expect(sh(origin, "show", `main:left-${taskId}.txt`)).toBe("from the agent");
    expect(isRunning(pidIn(group)), "the sleep in the agent's process group").toBe(false);
    expect(isRunning(pidIn(session)), "the sleep in a session of its own").toBe(false);
    // The operator reads what was stopped, and why.
    expect(run.log()).toMatch(/stopped 1 process\(es\) the agent left running/);
  });

  it("ends with ./verify.sh: a check that leaves processes behind still passes, the task completes, and they are gone", async () => {
    const agent = await agentWithToken(target);
    const pidFile = path.join(root, "verify.pid");
    // The project's check starts a helper in the background (a test database, say) and never stops it.
    const seed = path.join(root, "seed");
    sh(root, "clone", "--quiet", origin, seed);
    const sessionFile = path.join(root, "verify-session.pid");
    // One helper in its group, one in a session of its own (as a daemon would), both holding its output.
    writeFileSync(
      path.join(seed, "verify.sh"),
      [
        "#!/bin/bash",
        `sleep 302 & echo $! > ${pidFile}`,
        `setsid sh -c 'echo $$ > ${sessionFile}; exec sleep 303' &`,
        `while [ ! -s ${sessionFile} ]; do sleep 0.05; done`,
        'echo "checks passed"',
        "",
      ].join("\n"),
      { mode: 0o755 },
    );
    sh(seed, "add", "verify.sh");
    sh(seed, "-c", "user.name=bob", "-c", "user.email=bob@test.local", "commit", "--quiet", "-m", "add verify.sh");
    sh(seed, "push", "--quiet", "origin", "HEAD:main");
    const taskId = await createTask(target, { title: "checked by verify.sh", agentId: agent.id, timeLimitMinutes: 1 });
    const run = spawnWorker(workerEnv(agent.token, 'cat > /dev/null; echo changed > "v-$SWARMDECK_TASK_ID.txt"; echo coded'));
    expect(await run.exited, run.log()).toBe(0);
    expect((await getTask(target, taskId)).task.status, run.log()).toBe("completed");
    expect(sh(origin, "show", `main:v-${taskId}.txt`)).toBe("changed");
    expect(existsSync(pidFile), run.log()).toBe(true);
    expect(isRunning(pidIn(pidFile)), "the helper verify.sh started").toBe(false);
    expect(isRunning(pidIn(sessionFile)), "the helper verify.sh started in a session of its own").toBe(false);
  });
});

// A broken worker must not burn the queue: an agent it cannot start, a repository it
// cannot fetch, and an idle-proposal run that would not stop. The real worker process
// against the real app (worker/README.md, "When the worker itself is broken", "Idle proposals").
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURES, spawnWorker } from "../worker/test-support/run-worker";
import { startTestServer, type TestServer } from "./support/test-server";
import { agentMemories, agentWithToken, call, createTask, getTask, seedBareRepository, waitForTask } from "./worker-helpers";

let target: TestServer;
let root: string;

beforeAll(async () => {
  target = await startTestServer();
  root = mkdtempSync(path.join(tmpdir(), "swarmdeck-broken-"));
}, 600_000);
afterAll(async () => {
  await target?.stop();
  if (root) rmSync(root, { recursive: true, force: true });
});

const baseEnv = (token: string, workspace: string) => ({
  SWARMDECK_URL: target.baseUrl,
  SWARMDECK_TOKEN: token,
  WORKSPACE_DIR: path.join(root, workspace),
});

/** The task as the app has it, with its failure and release events. */
async function untouched(taskId: string) {
  const { task, events } = await getTask(target, taskId);
  return { task, kinds: (events as { type: string }[]).map((event) => event.type) };
}

/** Gone, or a zombie no process reaps (a container's init may not): it runs no more either way. */
function processGone(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.startsWith("Z") ?? true;
  } catch {
    return true;
  }
}

describe("a token the app does not take", { timeout: 120_000 }, () => {
  it("stops at start (exit 2, naming SWARMDECK_TOKEN and what to do) for a revoked token and an unknown one, claiming nothing", async () => {
    const agent = await agentWithToken(target);
    const taskId = await createTask(target, { title: "waits for a working token", agentId: agent.id });
    const listed = await call(target, "GET", `/api/v1/agents/${agent.id}/tokens`);
    const tokenId = (listed.body.tokens as { id: string }[])[0]?.id;
    expect((await call(target, "DELETE", `/api/v1/agents/${agent.id}/tokens/${tokenId}`)).status).toBe(204);
    for (const token of [agent.token, `sdw_${"x".repeat(43)}`]) {
      // Without --once: a worker that kept retrying would never exit and fail the test by its timeout.
      const worker = spawnWorker({ ...baseEnv(token, "refused-token"), AGENT_COMMAND: "true" }, []);
      expect(await worker.exited, worker.log()).toBe(2);
      expect(worker.log()).toMatch(/SWARMDECK_TOKEN: the app refused it \(401: .*revoked.*\)\. Create a worker token on the agent's page/);
      expect(worker.log()).toContain("no task was claimed");
      expect(worker.log()).not.toContain(token);
    }
    const { task, kinds } = await untouched(taskId);
    expect(task).toMatchObject({ status: "pending", attempts: 0 });
    expect(kinds).not.toContain("claimed");
  });

  it("stops at its next poll (exit 1) when its token is revoked while it runs", async () => {
    const agent = await agentWithToken(target);
    const worker = spawnWorker({ ...baseEnv(agent.token, "revoked-while-running"), AGENT_COMMAND: "true" }, []);
    await worker.waitFor("registered as agent");
    const listed = await call(target, "GET", `/api/v1/agents/${agent.id}/tokens`);
    const tokenId = (listed.body.tokens as { id: string }[])[0]?.id;
    expect((await call(target, "DELETE", `/api/v1/agents/${agent.id}/tokens/${tokenId}`)).status).toBe(204);
    expect(await worker.exited, worker.log()).toBe(1);
    expect(worker.log()).toContain("the app refused this worker's token");
  });
});

describe("a SWARMDECK_URL that is not the app", { timeout: 120_000 }, () => {
  it("stops at start (exit 2, naming SWARMDECK_URL) for another server, a wrong path and a redirect, and sends the token nowhere else", async () => {
    const agent = await agentWithToken(target);
    const seen: { url: string; authorization?: string }[] = [];
    const other = createServer((request, response) => {
      seen.push({ url: request.url ?? "", authorization: request.headers.authorization });
      if (request.url?.startsWith("/spa")) {
        // A single-page app's catch-all: 200 and its page for any path.
        response.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><div id=root></div>");
        return;
      }
      if (request.url?.startsWith("/moved")) {
        response.writeHead(308, { location: `${target.baseUrl}${request.url.slice("/moved".length)}` }).end();
        return;
      }
      response.writeHead(404, { "content-type": "text/html" }).end("<h1>Not Found</h1>");
    });
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    const otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    try {
      const cases: [string, RegExp][] = [
        [otherUrl, /it answers 404 without Swarmdeck's error shape/],
        [`${target.baseUrl}/swarmdeck`, /it answers 307, redirected to \/login/],
        [`${otherUrl}/spa`, /it answers, but not with a worker's registration/],
        [
          `${otherUrl}/moved`,
          new RegExp(`it answers 308, redirected to ${target.baseUrl.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/api/worker/register`),
        ],
      ];
      for (const [url, message] of cases) {
        const worker = spawnWorker({ ...baseEnv(agent.token, "wrong-url"), SWARMDECK_URL: url, AGENT_COMMAND: "true" }, []);
        expect(await worker.exited, worker.log()).toBe(2);
        expect(worker.log()).toMatch(/SWARMDECK_URL \(\S+\) does not look like the Swarmdeck app/);
        expect(worker.log()).toMatch(message);
        expect(worker.log()).toContain("no task was claimed");
      }
    } finally {
      other.close();
    }
    // The redirect was not followed: the token was never used at the app.
    const listed = await call(target, "GET", `/api/v1/agents/${agent.id}/tokens`);
    expect((listed.body.tokens as { lastUsedAt: string | null }[])[0]?.lastUsedAt).toBeNull();
    expect(seen.map(({ url }) => url)).toEqual(["/api/worker/register", "/spa/api/worker/register", "/moved/api/worker/register"]);
  });
});

describe("an agent that fails every task at once", { timeout: 120_000 }, () => {
  it("fails three tasks, then stops claiming for the pause (the rest of the queue keeps its attempts) and says why", async () => {
    const agent = await agentWithToken(target);
    const tasks: string[] = [];
    for (let i = 0; i < 6; i++) tasks.push(await createTask(target, { title: `queued ${i}`, agentId: agent.id }));
    // The agent starts (it is a real program) and exits 1 straight away, as a harness without its API key does.
    const worker = spawnWorker(
      { ...baseEnv(agent.token, "crashing-agent"), AGENT_COMMAND: "echo 'no API key' >&2; exit 1", CRASH_PAUSE_MS: "60000" },
      [],
    );
    await worker.waitFor("Claiming paused for 60 s", 60_000);
    expect(worker.log()).toMatch(
      /the agent failed 3 tasks in a row, each within 10 s of its claim .*it looks broken rather than the tasks/,
    );
    // Long enough for a worker that went on to claim the next ones (the test server's poll answers at once).
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const states = await Promise.all(tasks.map(untouched));
    const touched = states.filter(({ kinds }) => kinds.includes("claimed"));
    expect(touched).toHaveLength(3);
    for (const { task } of touched) expect(task.failureReason).toContain("no API key");
    for (const { task } of states.filter(({ kinds }) => !kinds.includes("claimed")))
      expect(task).toMatchObject({ status: "pending", attempts: 0 });
    worker.child.kill("SIGTERM");
    expect(await worker.exited, worker.log()).toBe(0);
  });
});

describe("a worker killed mid-task", { timeout: 120_000 }, () => {
  it("will not share its workspace: a second worker on it refuses to start (exit 2) and leaves the first one's agent running", async () => {
    const agent = await agentWithToken(target);
    const taskId = await createTask(target, { title: "held by the first worker", agentId: agent.id });
    const started = path.join(root, "first-agent-started");
    const first = spawnWorker({ ...baseEnv(agent.token, "shared-workspace"), AGENT_COMMAND: `touch ${started}; sleep 300` }, []);
    const deadline = Date.now() + 30_000;
    while (!existsSync(started) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    const second = spawnWorker({ ...baseEnv(agent.token, "shared-workspace"), AGENT_COMMAND: "true" }, ["--once"]);
    expect(await second.exited, second.log()).toBe(2);
    expect(second.log()).toContain(`is in use by another worker (pid ${first.child.pid})`);
    expect(second.log()).toContain("Give each worker its own WORKSPACE_DIR");
    // The first worker's agent was not touched: its task still runs.
    expect((await getTask(target, taskId)).task.status).toBe("in_progress");
    first.child.kill("SIGTERM");
    expect(await first.exited, first.log()).toBe(0);
  });

  it("leaves its agent running, and the next worker on that workspace kills the agent's processes before it claims again", async () => {
    const agent = await agentWithToken(target);
    await createTask(target, { title: "runs until its worker is killed", agentId: agent.id });
    const pids = path.join(root, "leftover-pids");
    // The agent and a child of its own, both in the agent's process group.
    const command = `sleep 300 & echo $! > ${pids}; echo $$ >> ${pids}; wait`;
    const first = spawnWorker({ ...baseEnv(agent.token, "killed-mid-task"), AGENT_COMMAND: command }, []);
    const deadline = Date.now() + 30_000;
    while (!(existsSync(pids) && readFileSync(pids, "utf8").trim().split("\n").length === 2) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const leftover = readFileSync(pids, "utf8").trim().split("\n").map(Number);
    first.child.kill("SIGKILL");
    await first.exited;
    // SIGKILL gives the worker no chance to stop its agent: both still run.
    for (const pid of leftover) expect(processGone(pid), `pid ${pid}`).toBe(false);

    const second = spawnWorker({ ...baseEnv(agent.token, "killed-mid-task"), AGENT_COMMAND: "true" }, ["--once"]);
    await second.exited;
    expect(second.log()).toContain("killed 2 agent process(es) an earlier worker on this workspace left running");
    for (const pid of leftover) expect(processGone(pid), `pid ${pid}`).toBe(true);
  });
});

describe("an agent the worker cannot start", { timeout: 120_000 }, () => {
  it("refuses to start (exit 2, naming the setting) and leaves the queued tasks as they were: AGENT_COMMAND missing, not executable, CLAUDE_BIN missing", async () => {
    const agent = await agentWithToken(target);
    const tasks = [
      await createTask(target, { title: "one", agentId: agent.id }),
      await createTask(target, { title: "two", agentId: agent.id }),
    ];
    const notExecutable = path.join(root, "agent-not-executable.sh");
    writeFileSync(notExecutable, "#!/bin/sh\necho hi\n", { mode: 0o644 });
    const cases: [Record<string, string>, RegExp][] = [
      [{ AGENT_COMMAND: path.join(root, "no-such-agent.sh") }, /AGENT_COMMAND: cannot run \S*no-such-agent\.sh .*no such file/],
      [{ AGENT_COMMAND: `${notExecutable} --flag` }, /AGENT_COMMAND: cannot run \S*agent-not-executable\.sh .*not executable/],
      [
        { HARNESS: "claude", CLAUDE_BIN: "claude-not-installed-here" },
        /CLAUDE_BIN: cannot run claude-not-installed-here .*not found on PATH/,
      ],
    ];
    for (const [env, message] of cases) {
      const worker = spawnWorker({ ...baseEnv(agent.token, "start-check"), ...env }, []);
      const code = await worker.exited;
      expect(code, worker.log()).toBe(2);
      expect(worker.log()).toMatch(message);
      expect(worker.log()).toContain("no task was claimed");
    }
    for (const taskId of tasks) {
      const { task, kinds } = await untouched(taskId);
      expect(task).toMatchObject({ status: "pending", attempts: 0 });
      expect(kinds).not.toContain("claimed");
    }
    expect(await agentMemories(target, agent.id, "task_failure")).toEqual([]);
  });

  it("gives a task back without a failure, a reflection or a lesson when the agent cannot be spawned after all, and stops claiming (exit 2)", async () => {
    const agent = await agentWithToken(target);
    const claude = path.join(mkdtempSync(path.join(root, "bin-")), "claude");
    copyFileSync(path.join(FIXTURES, "bin", "claude"), claude);
    chmodSync(claude, 0o755);
    const worker = spawnWorker(
      {
        ...baseEnv(agent.token, "late"),
        HARNESS: "claude",
        CLAUDE_BIN: claude,
        CLAUDE_CONFIG_DIR: path.join(root, "late-claude"),
      },
      [],
    );
    await worker.waitFor("registered as agent");
    // Broken after the start-up check: the next spawn fails with EACCES.
    chmodSync(claude, 0o644);
    const first = await createTask(target, { title: "first", agentId: agent.id });
    const second = await createTask(target, { title: "second", agentId: agent.id });
    expect(await worker.exited, worker.log()).toBe(2);
    expect(worker.log()).toMatch(/the agent could not be started: spawn \S+ EACCES/);
    expect(worker.log()).toContain("this worker stops claiming (exit 2)");
    expect(worker.log()).not.toContain("reflection");

    const claimed = [await untouched(first), await untouched(second)].filter((one) => one.kinds.includes("claimed"));
    expect(claimed).toHaveLength(1);
    const [given] = claimed;
    expect(given!.task.status).toBe("pending");
    expect(given!.kinds).toContain("released");
    expect(given!.kinds).not.toContain("failed");
    const { events } = await getTask(target, given!.task.id);
    expect(JSON.stringify(events)).toContain("the worker could not start its agent (not the task's fault)");
    expect(await agentMemories(target, agent.id, "task_failure")).toEqual([]);
    expect(await agentMemories(target, agent.id, "reflection")).toEqual([]);
  });
});

describe("a repository the worker cannot fetch", { timeout: 180_000 }, () => {
  it("claims nothing while the fetch fails (the task keeps its attempts), says so once, and takes the task when the repository is back", async () => {
    const agent = await agentWithToken(target);
    const origin = path.join(root, "origin.git");
    seedBareRepository(origin);
    const env = { ...baseEnv(agent.token, "repo"), REPO_URL: origin, AGENT_COMMAND: path.join(FIXTURES, "agents", "echo-prompt.sh") };
    // A first run clones the project (no task yet), as a worker that ran before would have.
    const first = spawnWorker(env, ["--once"]);
    expect(await first.exited, first.log()).toBe(0);

    renameSync(origin, `${origin}.away`);
    const taskId = await createTask(target, { title: "needs the repo", agentId: agent.id });
    const worker = spawnWorker(env, []);
    await worker.waitFor("claiming no tasks until it works again");
    const paused = await untouched(taskId);
    expect(paused.task).toMatchObject({ status: "pending", attempts: 0 });
    expect(paused.kinds).not.toContain("claimed");

    renameSync(`${origin}.away`, origin);
    const { task } = await waitForTask(target, taskId, (t) => t.status === "completed", 90_000);
    expect(task.attempts).toBe(1);
    worker.child.kill("SIGTERM");
    expect(await worker.exited, worker.log()).toBe(0);
    const log = worker.log();
    expect(log).toContain(`git fetch origin works again: claiming tasks`);
    // Once per change of state, however often it was retried.
    expect(log.match(/git fetch origin fails/g)).toHaveLength(1);
  });
});

describe("idle proposals", { timeout: 120_000 }, () => {
  it("files one proposal per idle stretch, and asks again only after a task has run", async () => {
    const agent = await agentWithToken(target);
    const marker = `idle-${process.pid}-${Date.now().toString(36)}`;
    const worker = spawnWorker(
      {
        ...baseEnv(agent.token, "idle-once"),
        AGENT_COMMAND: `cat >/dev/null; echo "Proposal ${marker}"; echo; echo "Cache the dependency install in CI."`,
        IDLE_PROPOSAL_AFTER: "100",
      },
      [],
    );
    await worker.waitFor("idle: filed proposal");
    const proposals = async () => {
      const reply = await call(target, "GET", `/api/v1/tasks?tag=proposal&q=${marker}&limit=100`);
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      return reply.body.tasks as { id: string; title: string }[];
    };
    // Many idle polls later (200 ms each, 100 ms idle threshold): still the one proposal.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(await proposals()).toHaveLength(1);

    const taskId = await createTask(target, { title: "a real task", agentId: agent.id });
    await waitForTask(target, taskId, (t) => t.status === "completed");
    await worker.waitFor(/idle: filed proposal[\s\S]*task completed[\s\S]*idle: filed proposal/);
    worker.child.kill("SIGTERM");
    expect(await worker.exited, worker.log()).toBe(0);
    expect(await proposals()).toHaveLength(2);
  });

  it("stops a hanging idle run at the time limit, and on SIGTERM stops its process group and exits 0", async () => {
    const agent = await agentWithToken(target);
    const dir = mkdtempSync(path.join(root, "idle-hang-"));
    const pidFile = path.join(dir, "pid");
    const signalFile = path.join(dir, "signals");
    const worker = spawnWorker(
      {
        ...baseEnv(agent.token, "idle-hang"),
        AGENT_COMMAND: path.join(FIXTURES, "agents", "sleep.sh"),
        AGENT_PID_FILE: pidFile,
        AGENT_SIGNAL_FILE: signalFile,
        IDLE_PROPOSAL_AFTER: "100",
        MAX_TASK_MINUTES: "0.02",
      },
      [],
    );
    // The time limit (MAX_TASK_MINUTES) stops the first run; the worker asks again after the idle interval.
    await worker.waitFor("idle: the proposal run took longer than 0.02 min (MAX_TASK_MINUTES); stopping it", 60_000);
    await worker.waitFor("idle: no proposal (timed out)");
    expect(readFileSync(signalFile, "utf8")).toContain("got SIGTERM");
    rmSync(pidFile, { force: true });
    await worker.waitFor(/idle: no proposal \(timed out\)[\s\S]*idle: asking the agent/);
    const deadline = Date.now() + 20_000;
    while (!existsSync(pidFile) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    const pid = Number(readFileSync(pidFile, "utf8").trim());

    worker.child.kill("SIGTERM");
    expect(await worker.exited, worker.log()).toBe(0);
    expect(worker.log()).toContain("idle: the worker is stopping; stopping the proposal run");
    expect(processGone(pid)).toBe(true);
    expect(readFileSync(signalFile, "utf8").match(/got SIGTERM/g)).toHaveLength(2);
    const reply = await call(target, "GET", `/api/v1/tasks?tag=proposal&q=${encodeURIComponent("started, waiting")}`);
    expect(reply.body.tasks).toEqual([]);
  });
});

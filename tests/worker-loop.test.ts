// The real worker process (worker/main.ts) against the real app (global setup),
// with scripted agents (tests/fixtures/agents) and the stand-in Claude Code CLI
// (tests/fixtures/bin/claude): the workspace it builds, the setup script's runs,
// the sync of identity files and memory, the swarm CLI, the claude harness and its
// cage, idle proposals and the configuration check. What the worker did is read back
// through the operator API, the worker's log and the workspace's files.
import { execFileSync } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SETUP_MARKER_END, SETUP_MARKER_START } from "../lib/setup-script/compose";
import { FIXTURES, spawnWorker } from "../worker/test-support/run-worker";
import { server } from "./support/client";
import {
  agentWithToken,
  call,
  createTask,
  getTask,
  identity,
  saveIdentity as saveIdentityAs,
  setGlobalSetupScript,
  storeUncheckedIdentityVersion,
  type Target,
} from "./worker-helpers";

let target: Target;
const temporary: string[] = [];
const fixtureAgent = (name: string) => path.join(FIXTURES, "agents", name);
const CLAUDE_BIN = path.join(FIXTURES, "bin", "claude");
const GLOBAL_SCRIPT = '#!/bin/bash\necho "global script ran" >> setup-runs.log';
const AGENT_SCRIPT = 'echo "agent script ran" >> setup-runs.log';
const count = (text: string, needle: string) => text.split(needle).length - 1;

function folder(prefix = "swarmdeck-wl-") {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  temporary.push(dir);
  return dir;
}

/** A workspace, with the worker's layout (worker/README.md): the agent's own files in home/, its working folder in project/. */
function workspace() {
  const dir = folder();
  return {
    dir,
    home: (file: string) => path.join(dir, "home", file),
    project: (file: string) => path.join(dir, "project", file),
  };
}

function worker(token: string, dir: string, env: Record<string, string>, args = ["--once"]) {
  return spawnWorker({ SWARMDECK_URL: target.baseUrl, SWARMDECK_TOKEN: token, WORKSPACE_DIR: dir, POLL_WAIT_MS: "2000", ...env }, args);
}

/** An operator's save of one of the agent's identity files, through the operator API. */
const saveIdentity = (agentId: string, slug: string, content: string) => saveIdentityAs(target, agentId, slug, content);

async function versions(agentId: string, slug: string) {
  const reply = await call(target, "GET", `/api/v1/agents/${agentId}/identity/${slug}/versions`);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body.versions as Array<{
    id: string;
    authorType: string;
    taskId: string | null;
    reason: string | null;
    parentVersionId: string | null;
  }>;
}
const agentVersions = async (agentId: string, slug: string) =>
  (await versions(agentId, slug)).filter((version) => version.authorType === "agent");

/** The agent's proposals (any status), each with its detail (base, current and proposed content). */
async function proposals(agentId: string) {
  const list = await call(target, "GET", `/api/v1/proposals?agentId=${agentId}`);
  expect(list.status, JSON.stringify(list.body)).toBe(200);
  const details = [];
  for (const proposal of list.body.proposals) {
    const detail = await call(target, "GET", `/api/v1/proposals/${proposal.id}`);
    expect(detail.status, JSON.stringify(detail.body)).toBe(200);
    details.push(detail.body);
  }
  return details as Array<{
    kind: string;
    status: string;
    trigger: string;
    taskId: string | null;
    baseVersionId: string | null;
    proposedContent: string;
  }>;
}

async function memories(agentId: string, source: string) {
  const reply = await call(target, "GET", `/api/v1/memories?agentId=${agentId}&source=${source}&limit=200`);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body.memories as Array<{
    id: number;
    name: string;
    content: string;
    scope: string;
    source: string;
    sourceTaskId: string | null;
    sourcePath: string | null;
  }>;
}

/** The worker's last run of the setup script as the agent's page shows it. */
async function setupStatus(agentId: string) {
  const reply = await call(target, "GET", `/api/v1/agents/${agentId}`);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body.agent.setup as { status: string; output: string; hash: string | null } | null;
}

async function audit(agentId: string, action: string) {
  const reply = await call(target, "GET", `/api/v1/audit?agentId=${agentId}&action=${action}`);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body.events as Array<{ data: Record<string, unknown> }>;
}

async function cancel(taskId: string) {
  const reply = await call(target, "PATCH", `/api/v1/tasks/${taskId}`, { action: "cancel", reason: "test cleanup" });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
}

/** What the stand-in Claude Code CLI reports of the flags it got (the task's output). */
function claudeReport(output: string | null) {
  const match = /fake claude result (.*)/.exec(output ?? "");
  expect(match, output ?? "no output").not.toBeNull();
  return JSON.parse(match![1]!);
}

let previousGlobal: string | null = null;
beforeAll(async () => {
  target = server();
  // The server is shared with other test files: the global script is put back afterwards.
  const before = await call(target, "GET", "/api/v1/config?scope=global&key=SETUP_SCRIPT");
  previousGlobal = before.body.entries?.[0]?.value ?? null;
  await setGlobalSetupScript(target, GLOBAL_SCRIPT);
});
afterAll(async () => {
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
  if (previousGlobal !== null) await setGlobalSetupScript(target, previousGlobal);
  else await call(target, "DELETE", "/api/v1/config?scope=global&key=SETUP_SCRIPT");
});

describe("worker loop against the real app", { timeout: 120_000 }, () => {
  it("builds the workspace, runs setup and agent, syncs identity, setup script and memory, completes", async () => {
    const agent = await agentWithToken(target, { securityProfile: "standard" });
    await saveIdentity(agent.id, "setup-script", AGENT_SCRIPT);
    const toolsBefore = await identity(target, agent.id, "tools");
    const ws = workspace();
    const title = "learn the build tools";
    const first = await createTask(target, { title, agentId: agent.id });

    const run = worker(agent.token, ws.dir, { AGENT_COMMAND: fixtureAgent("edit-identity.sh") });
    expect(await run.exited, run.log()).toBe(0);
    const done = await getTask(target, first);
    expect(done.task.status, run.log()).toBe("completed");
    expect(done.task.output).toContain(`agent output for ${first}`);
    expect(done.task.output).toMatch(new RegExp(`prompt began with: .*${title}`));

    // TOOLS.md (applied on standard): a new version by the agent, against the version it was written from, with the task.
    const tools = await agentVersions(agent.id, "tools");
    expect(tools).toHaveLength(1);
    expect(tools[0]).toMatchObject({ taskId: first, parentVersionId: toolsBefore.versionId });
    expect((await identity(target, agent.id, "tools")).content).toContain(`ripgrep is installed by the setup script (task ${first})`);
    // SOUL.md and the setup script: the standard profile turns them into proposals. The task has no
    // grant and the worker never declares an explicit request, so both are the agent's own.
    const queued = await proposals(agent.id);
    expect(queued.map((p) => p.kind).sort()).toEqual(["SETUP_SCRIPT", "SOUL"]);
    for (const proposal of queued) expect(proposal).toMatchObject({ status: "pending", trigger: "agent", taskId: first });
    expect(queued.find((p) => p.kind === "SOUL")!.proposedContent).toContain(`I double-check my work (task ${first})`);
    // The setup script comes back without markers, shebang or the global script.
    expect(queued.find((p) => p.kind === "SETUP_SCRIPT")!.proposedContent).toBe(
      `${AGENT_SCRIPT}\necho "agent added line ran" >> setup-runs.log # agent-added-${first}`,
    );
    // memory/ files: agent scope, memory/shared/ swarm scope, with their path and the task.
    const indexed = await memories(agent.id, "file_index");
    expect(indexed.map((m) => [m.sourcePath, m.scope, m.source, m.sourceTaskId]).sort()).toEqual([
      ["memory/build-notes.md", "agent", "file_index", first],
      ["memory/shared/staging.md", "swarm", "file_index", first],
    ]);
    const staging = indexed.find((m) => m.sourcePath === "memory/shared/staging.md")!;
    expect(readFileSync(ws.project("setup-runs.log"), "utf8")).toBe("global script ran\nagent script ran\n");
    expect(run.log()).toMatch(new RegExp(`task=${first} .*sync TOOLS\\.md: applied`));
    expect(run.log()).toMatch(new RegExp(`task=${first} .*sync SOUL\\.md: queued as proposal`));

    // A second task: one marker block, both scripts run again; the agent's new line is still a
    // proposal (standard profile), so the stored script runs without it.
    const second = await createTask(target, { title: "second", agentId: agent.id });
    const again = worker(agent.token, ws.dir, { AGENT_COMMAND: fixtureAgent("edit-identity.sh") });
    expect(await again.exited, again.log()).toBe(0);
    expect((await getTask(target, second)).task.status, again.log()).toBe("completed");
    const startup = readFileSync(ws.home("start-up.sh"), "utf8");
    expect(count(startup, SETUP_MARKER_START)).toBe(1);
    expect(count(startup, SETUP_MARKER_END)).toBe(1);
    expect(count(startup, "#!/bin/bash")).toBe(1);
    expect(readFileSync(ws.project("setup-runs.log"), "utf8")).toBe(
      "global script ran\nagent script ran\nglobal script ran\nagent script ran\n",
    );
    // An unchanged memory file is not sent again (its memory is the first task's); a changed one is (it replaces its old chunks).
    const reindexed = await memories(agent.id, "file_index");
    expect(reindexed.filter((m) => m.sourcePath === "memory/shared/staging.md")).toEqual([
      expect.objectContaining({ id: staging.id, sourceTaskId: first }),
    ]);
    const notes = reindexed.filter((m) => m.sourcePath === "memory/build-notes.md");
    expect(notes).toEqual([expect.objectContaining({ sourceTaskId: second })]);
    expect(notes[0]!.content).toContain(`learned in ${second}`);
  });

  it("prepends the block to an operator's existing start-up file and keeps its content", async () => {
    const agent = await agentWithToken(target);
    await saveIdentity(agent.id, "setup-script", AGENT_SCRIPT);
    const setupVersions = await versions(agent.id, "setup-script");
    const ws = workspace();
    mkdirSync(path.join(ws.dir, "home"));
    writeFileSync(ws.home("start-up.bash"), '#!/bin/bash\necho "operator script ran" >> setup-runs.log\n');
    const taskId = await createTask(target, { title: "keep my start-up file", agentId: agent.id });
    const run = worker(agent.token, ws.dir, { AGENT_COMMAND: "cat >/dev/null; echo ok" });
    expect(await run.exited, run.log()).toBe(0);
    expect((await getTask(target, taskId)).task.status, run.log()).toBe("completed");
    const file = readFileSync(ws.home("start-up.bash"), "utf8");
    expect(file.indexOf(SETUP_MARKER_START)).toBeGreaterThanOrEqual(0);
    expect(file.indexOf(SETUP_MARKER_START)).toBeLessThan(file.indexOf("operator script ran"));
    expect(readFileSync(ws.project("setup-runs.log"), "utf8")).toBe("global script ran\nagent script ran\noperator script ran\n");
    // The operator's own lines are not the agent's setup script: nothing was sent back.
    expect(await versions(agent.id, "setup-script")).toEqual(setupVersions);
    expect(await proposals(agent.id)).toEqual([]);
    // A restart keeps them: the worker recorded the file as it found it at its first start.
    const again = worker(agent.token, ws.dir, { AGENT_COMMAND: "cat >/dev/null; echo ok" });
    expect(await again.exited, again.log()).toBe(0);
    expect(readFileSync(ws.project("setup-runs.log"), "utf8")).toBe("global script ran\nagent script ran\noperator script ran\n".repeat(2));
  });

  it("does not run a paranoid agent's own lines in its start-up file: only the block between the markers is its setup script", async () => {
    // On paranoid the agent changes none of the files that steer it (the setup script included) without a grant (lib/identity/rules.ts).
    const agent = await agentWithToken(target, { securityProfile: "paranoid" });
    await saveIdentity(agent.id, "setup-script", AGENT_SCRIPT);
    const setupVersions = await versions(agent.id, "setup-script");
    const ws = workspace();
    const taskId = await createTask(target, { title: "leave a line behind", agentId: agent.id });
    const edit = `cat >/dev/null; echo 'echo "a line the agent left ran" >> setup-runs.log' >> "$SWARMDECK_HOME/start-up.sh"; echo ok`;
    const first = worker(agent.token, ws.dir, { AGENT_COMMAND: edit });
    expect(await first.exited, first.log()).toBe(0);
    expect((await getTask(target, taskId)).task.status, first.log()).toBe("completed");

    // The next start runs the setup script again: the app's script, nothing the agent left.
    const second = worker(agent.token, ws.dir, { AGENT_COMMAND: "cat >/dev/null; echo ok" });
    expect(await second.exited, second.log()).toBe(0);
    expect(readFileSync(ws.project("setup-runs.log"), "utf8")).toBe("global script ran\nagent script ran\n".repeat(2));
    expect(await versions(agent.id, "setup-script")).toEqual(setupVersions);
    expect(readFileSync(ws.home("start-up.sh"), "utf8")).not.toContain("a line the agent left");
    expect(first.log()).toContain(`task=${taskId} start-up.sh: put back as the worker wrote it`);
  });

  it("starts from the start-up files it last left: what changed while no worker ran does not run at the next start", async () => {
    // E.g. the worker was killed while its agent ran, before it could put the files back, or a process the agent left behind wrote them.
    const agent = await agentWithToken(target);
    await saveIdentity(agent.id, "setup-script", AGENT_SCRIPT);
    const ws = workspace();
    const first = worker(agent.token, ws.dir, { AGENT_COMMAND: "cat >/dev/null; echo ok" });
    expect(await first.exited, first.log()).toBe(0);
    appendFileSync(ws.home("start-up.sh"), 'echo "a line left while no worker ran" >> setup-runs.log\n');
    writeFileSync(ws.home("start-up"), '#!/bin/sh\necho "a start-up file of its own" >> setup-runs.log\n');
    const second = worker(agent.token, ws.dir, { AGENT_COMMAND: "cat >/dev/null; echo ok" });
    expect(await second.exited, second.log()).toBe(0);
    expect(readFileSync(ws.project("setup-runs.log"), "utf8")).toBe("global script ran\nagent script ran\n".repeat(2));
    expect(readFileSync(ws.home("start-up.sh"), "utf8")).not.toContain("a line left");
    expect(existsSync(ws.home("start-up"))).toBe(false);
    expect(second.log()).toContain("start-up.sh, start-up: changed since the worker last left them: put back before the setup script runs");
  });

  it("in a home kept from a worker that recorded nothing (an earlier version), keeps only the setup block at start", async () => {
    const agent = await agentWithToken(target);
    await saveIdentity(agent.id, "setup-script", AGENT_SCRIPT);
    const ws = workspace();
    const first = worker(agent.token, ws.dir, { AGENT_COMMAND: "cat >/dev/null; echo ok" });
    expect(await first.exited, first.log()).toBe(0);
    // As an earlier worker version left it: no record, and an agent's line after the end marker.
    rmSync(path.join(ws.dir, "startup-state.json"));
    appendFileSync(ws.home("start-up.sh"), 'echo "an old infection ran" >> setup-runs.log\n');
    writeFileSync(ws.home("start-up.bash"), '#!/bin/bash\necho "a second old infection ran" >> setup-runs.log\n');
    const second = worker(agent.token, ws.dir, { AGENT_COMMAND: "cat >/dev/null; echo ok" });
    expect(await second.exited, second.log()).toBe(0);
    expect(readFileSync(ws.project("setup-runs.log"), "utf8")).toBe("global script ran\nagent script ran\n".repeat(2));
    expect(readFileSync(ws.home("start-up.sh"), "utf8")).not.toContain("old infection");
    expect(existsSync(ws.home("start-up.bash"))).toBe(false);
    expect(second.log()).toMatch(/start-up\.sh: only its setup block kept at start: .*dropped: echo "an old infection ran"/);
    expect(second.log()).toMatch(/start-up\.bash: removed at start: .*dropped: #!\/bin\/bash \/ echo "a second old infection ran"/);
  });

  it("claims no task when the setup script fails (strict by default) and reports the failure with its output", async () => {
    const agent = await agentWithToken(target);
    await saveIdentity(agent.id, "setup-script", "echo 'apt-get: unable to locate package nope' >&2\nexit 7");
    const ws = workspace();
    const taskId = await createTask(target, { title: "never claimed", agentId: agent.id });
    const run = worker(agent.token, ws.dir, { AGENT_COMMAND: "touch agent-ran; cat >/dev/null" });
    expect(await run.exited, run.log()).toBe(0);
    // The task is not touched: no claim, no failure, the agent never ran.
    const { task, events } = await getTask(target, taskId);
    expect(task).toMatchObject({ status: "pending", attempts: 0 });
    expect(events.map((event: { type: string }) => event.type)).toEqual(["created"]);
    expect(existsSync(ws.project("agent-ran"))).toBe(false);
    // The failure is on the agent, with the script's output, and audited with what the worker reported.
    const setup = await setupStatus(agent.id);
    expect(setup).toMatchObject({ status: "failed", hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(setup!.output).toContain("unable to locate package nope");
    expect((await audit(agent.id, "agent.setup_failed")).map((event) => event.data)).toEqual([
      expect.objectContaining({ exitCode: 7, blocking: true, hash: setup!.hash }),
    ]);
    expect(run.log()).toContain("claiming no tasks until it changes");
    await cancel(taskId);
  });

  it("runs the setup script once at start and again only when it changes, between tasks", async () => {
    const agent = await agentWithToken(target);
    await saveIdentity(agent.id, "setup-script", AGENT_SCRIPT);
    const ws = workspace();
    const t1 = await createTask(target, { title: "one", agentId: agent.id });
    const t2 = await createTask(target, { title: "two", agentId: agent.id });
    const run = worker(agent.token, ws.dir, { AGENT_COMMAND: "cat >/dev/null; echo done", POLL_WAIT_MS: "200" }, []);
    let exit: number | null;
    try {
      await run.waitFor(new RegExp(`task=${t1} .*task completed`), 60_000);
      await run.waitFor(new RegExp(`task=${t2} .*task completed`), 60_000);
      expect(readFileSync(ws.project("setup-runs.log"), "utf8")).toBe("global script ran\nagent script ran\n");
      const firstRun = await setupStatus(agent.id);
      expect(firstRun?.status).toBe("ok");

      // An operator changes the global script while the worker waits for work.
      await setGlobalSetupScript(target, '#!/bin/bash\necho "global script v2 ran" >> setup-runs.log');
      await run.waitFor("it changed, running it again", 60_000);
      const t3 = await createTask(target, { title: "three", agentId: agent.id });
      await run.waitFor(new RegExp(`task=${t3} .*task completed`), 60_000);
    } finally {
      // Stopped before the global script is put back, which it would otherwise run as a change.
      run.child.kill("SIGTERM");
      exit = await run.exited;
      await setGlobalSetupScript(target, GLOBAL_SCRIPT);
    }
    expect(exit, run.log()).toBe(0);
    expect(readFileSync(ws.project("setup-runs.log"), "utf8")).toBe(
      "global script ran\nagent script ran\nglobal script v2 ran\nagent script ran\n",
    );
    // Two runs reported, both ok, of two different scripts.
    const secondRun = await setupStatus(agent.id);
    expect(secondRun?.status).toBe("ok");
    const runs = await audit(agent.id, "agent.setup_ok");
    expect(runs).toHaveLength(2);
    expect(runs[0]!.data.hash).toBe(secondRun!.hash);
    expect(runs[1]!.data.hash).not.toBe(secondRun!.hash);
  });

  it("goes on after a failing setup script when STARTUP_SCRIPT_STRICT=false", async () => {
    const agent = await agentWithToken(target);
    await saveIdentity(agent.id, "setup-script", "exit 7");
    const taskId = await createTask(target, { title: "not strict", agentId: agent.id });
    const run = worker(agent.token, workspace().dir, { AGENT_COMMAND: "cat >/dev/null; echo fine", STARTUP_SCRIPT_STRICT: "false" });
    expect(await run.exited, run.log()).toBe(0);
    expect((await getTask(target, taskId)).task.status, run.log()).toBe("completed");
    expect((await setupStatus(agent.id))?.status).toBe("failed");
  });

  it("resends a write that met a moved-on file (409) as a proposal against the current version", async () => {
    const agent = await agentWithToken(target, { securityProfile: "standard" });
    const before = await identity(target, agent.id, "tools");
    const ws = workspace();
    const signal = path.join(folder("swarmdeck-wl-signal-"), "go");
    const taskId = await createTask(target, { title: "note a tool", agentId: agent.id });
    // The agent edits TOOLS.md only once the test says so: after an operator saved it meanwhile.
    const script = [
      "cat >/dev/null",
      'for _ in $(seq 1 600); do [ -e "$WL_SIGNAL_FILE" ] && break; sleep 0.1; done',
      '[ -e "$WL_SIGNAL_FILE" ] || { echo "no signal" >&2; exit 1; }',
      'echo "- ripgrep is installed by the setup script (task $SWARMDECK_TASK_ID)" >> "$SWARMDECK_HOME/TOOLS.md"',
      "echo noted",
    ].join("\n");
    const run = worker(agent.token, ws.dir, { AGENT_COMMAND: script, WL_SIGNAL_FILE: signal });
    await run.waitFor("agent started", 60_000);
    const operatorVersion = await saveIdentity(agent.id, "tools", `${before.content}- fd is installed (operator's edit)\n`);
    writeFileSync(signal, "go\n");
    expect(await run.exited, run.log()).toBe(0);
    expect((await getTask(target, taskId)).task.status, run.log()).toBe("completed");

    // "review": a proposal on every profile (TOOLS.md is applied on standard otherwise), against the
    // operator's version, so the operator's newer version is never overwritten unseen.
    const tools = (await proposals(agent.id)).find((p) => p.kind === "TOOLS");
    expect(tools).toMatchObject({ status: "pending", baseVersionId: operatorVersion, taskId });
    expect(tools!.proposedContent).toContain("ripgrep is installed");
    const current = await identity(target, agent.id, "tools");
    expect(current.versionId).toBe(operatorVersion);
    expect(current.content).not.toContain("ripgrep is installed");
    expect(run.log()).toMatch(/sync TOOLS\.md: 409 stale_base: resent as proposal/);
  });

  it("gives the agent a working swarm CLI that never exposes the worker token", async () => {
    const agent = await agentWithToken(target, { securityProfile: "standard" });
    const soul = await identity(target, agent.id, "soul");
    const taskId = await createTask(target, { title: "use the cli", agentId: agent.id });
    const run = worker(agent.token, workspace().dir, { AGENT_COMMAND: fixtureAgent("swarm-cli.sh") });
    expect(await run.exited, run.log()).toBe(0);
    const { task, events } = await getTask(target, taskId);
    expect(task.status, run.log()).toBe("completed");
    expect(task.output).toContain("proposed: soul waits for an operator's review");
    expect(task.output).toContain("# pnpm tip");
    expect(task.output).toContain("locked exit: 1");
    expect(task.output).toContain("usage exit: 2");
    // The refusal reads as the app gave it: the status once, no request line of the worker's.
    const refusal = (task.output as string).split("\n").find((line) => line.startsWith("swarm: 403 locked: "));
    expect(refusal, task.output).toMatch(/^swarm: 403 locked: \S.*AGENT/);
    expect(refusal).not.toContain("/api/worker/");
    expect(refusal?.match(/403/g)).toHaveLength(1);
    expect(
      events.filter((event: { type: string }) => event.type === "progress").map((event: { message: string }) => event.message),
    ).toContain("reading the code base");
    // Exactly the CLI's proposal: the untouched SOUL.md in the workspace was not sent over it at exit.
    expect(await proposals(agent.id)).toEqual([
      expect.objectContaining({
        kind: "SOUL",
        status: "pending",
        baseVersionId: soul.versionId,
        proposedContent: "# Soul\nI am careful and kind.\n",
        taskId,
      }),
    ]);
    expect(await agentVersions(agent.id, "soul")).toEqual([]);
    expect(await memories(agent.id, "manual")).toContainEqual(
      expect.objectContaining({ name: "pnpm tip", scope: "swarm", source: "manual", sourceTaskId: taskId }),
    );
  });

  it("writes an applied `swarm identity write` into the workspace file, so it is not sent twice", async () => {
    const agent = await agentWithToken(target, { securityProfile: "power" });
    const ws = workspace();
    const taskId = await createTask(target, { title: "be bold", agentId: agent.id });
    const script = [
      "cat >/dev/null",
      "printf '# Soul\\nBold.\\n' > /tmp/soul-$$.md",
      "swarm identity write soul --file /tmp/soul-$$.md --reason 'be bold' || exit 5",
      "printf 'apt-get install -y ripgrep\\n' > /tmp/setup-$$.sh",
      "swarm identity write setup-script --file /tmp/setup-$$.sh --reason 'rg' || exit 6",
      "rm -f /tmp/soul-$$.md /tmp/setup-$$.sh",
    ].join("\n");
    const run = worker(agent.token, ws.dir, { AGENT_COMMAND: script });
    expect(await run.exited, run.log()).toBe(0);
    expect((await getTask(target, taskId)).task.status, run.log()).toBe("completed");
    expect((await identity(target, agent.id, "soul")).content).toBe("# Soul\nBold.\n");
    expect(readFileSync(ws.home("SOUL.md"), "utf8")).toBe("# Soul\nBold.\n");
    expect(readFileSync(ws.home("start-up.sh"), "utf8")).toContain(`apt-get install -y ripgrep\n${SETUP_MARKER_END}`);
    // One version each, the CLI's: the worker's sync at exit found nothing new to send.
    expect(await agentVersions(agent.id, "soul")).toHaveLength(1);
    expect(await agentVersions(agent.id, "setup-script")).toHaveLength(1);
    expect(await proposals(agent.id)).toEqual([]);
  });

  it("a `swarm identity propose` of the file's current text queues nothing for review and tells the agent so", async () => {
    const agent = await agentWithToken(target, { securityProfile: "standard" });
    const ws = workspace();
    const taskId = await createTask(target, { title: "propose nothing", agentId: agent.id });
    const script = [
      "cat >/dev/null",
      `cp "$SWARMDECK_HOME/SOUL.md" /tmp/same-$$.md`,
      "swarm identity propose soul --file /tmp/same-$$.md --reason 'same'; echo \"propose exit $?\"",
      "rm -f /tmp/same-$$.md",
    ].join("\n");
    const run = worker(agent.token, ws.dir, { AGENT_COMMAND: script });
    expect(await run.exited, run.log()).toBe(0);
    const { task, events } = await getTask(target, taskId);
    expect(task.status, run.log()).toBe("completed");
    expect(task.output).toMatch(/unchanged: soul is already this text \(version \S+\); nothing to review\s+propose exit 0/i);
    expect(await proposals(agent.id)).toEqual([]);
    expect(await agentVersions(agent.id, "soul")).toEqual([]);
    expect(events.map((event: { message: string }) => event.message)).toContain(
      "SOUL.md: unchanged (the proposed text is the current version; nothing to review)",
    );
  });

  it("sends no identity file, memory or `swarm` input that is not UTF-8 text, and says so (the bytes would become U+FFFD)", async () => {
    const agent = await agentWithToken(target, { securityProfile: "power" });
    const soulBefore = await identity(target, agent.id, "soul");
    const ws = workspace();
    const taskId = await createTask(target, { title: "latin-1", agentId: agent.id });
    const script = [
      "cat >/dev/null",
      `printf '# Soul\\ncaf\\351\\n' > "$SWARMDECK_HOME/SOUL.md"`,
      `printf 'na\\357ve\\n' > "$SWARMDECK_HOME/memory/latin1.md"`,
      "printf 'caf\\351\\n' > /tmp/latin1-$$.md",
      "swarm identity write tools --file /tmp/latin1-$$.md --reason 'latin-1' 2>&1; echo \"write exit $?\"",
      'swarm memory store --name latin1 --file /tmp/latin1-$$.md; echo "store exit $?"',
      "rm -f /tmp/latin1-$$.md",
    ].join("\n");
    const run = worker(agent.token, ws.dir, { AGENT_COMMAND: script });
    expect(await run.exited, run.log()).toBe(0);
    const { task } = await getTask(target, taskId);
    expect(task.status, run.log()).toBe("completed");
    expect(task.output).toMatch(/latin1-\d+\.md is not UTF-8 text: nothing was sent[\s\S]*write exit 2/);
    expect(task.output).toMatch(/store exit 2/);
    expect(run.log()).toContain(`task=${taskId} sync SOUL.md is not UTF-8 text: not sent`);
    expect(run.log()).toContain(`task=${taskId} sync latin1.md is not UTF-8 text: not sent`);
    // Nothing reached the app: no version, no proposal, no memory of the file.
    expect((await identity(target, agent.id, "soul")).content).toBe(soulBefore.content);
    expect(await agentVersions(agent.id, "soul")).toEqual([]);
    expect(await agentVersions(agent.id, "tools")).toEqual([]);
    expect(await proposals(agent.id)).toEqual([]);
    expect((await memories(agent.id, "file_index")).map((memory) => memory.name)).toEqual([]);
    expect((await memories(agent.id, "manual")).map((memory) => memory.name)).not.toContain("latin1");
  });

  it("logs what the agent says as text: no terminal escapes, and no line of its own that looks like the worker's", async () => {
    const agent = await agentWithToken(target);
    const ws = workspace();
    const taskId = await createTask(target, { title: "forge a log line", agentId: agent.id });
    const forged = `12:00:00.000 info  task=${taskId} task completed`;
    const script = [
      "cat >/dev/null",
      `swarm progress "$(printf 'step \\033[2K\\r%s' "$FORGED")"`,
      `printf 'a note' > "$SWARMDECK_HOME/memory/$(printf 'note\\n%s' "$FORGED").md"`,
      "sleep 1",
    ].join("\n");
    const run = worker(agent.token, ws.dir, { AGENT_COMMAND: script, FORGED: forged });
    expect(await run.exited, run.log()).toBe(0);
    expect((await getTask(target, taskId)).task.status, run.log()).toBe("completed");
    const log = run.log();
    expect(log).toContain(`task=${taskId} progress: step \\u001b[2K\\u000d${forged}`);
    expect(log.includes("\u001b") || log.includes("\r")).toBe(false);
    const completed = log
      .split("\n")
      .filter((line) => new RegExp(`^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} info  task=${taskId} task completed$`).test(line));
    expect(completed, log).toHaveLength(1);
  });

  it("keeps claiming and running tasks after the agent swaps its home for a symlink (the queue is not given back task by task)", async () => {
    const agent = await agentWithToken(target);
    const ws = workspace();
    const swap = await createTask(target, { title: "swap the home", agentId: agent.id });
    const next = await createTask(target, { title: "the next one", agentId: agent.id });
    const script = [
      "cat >/dev/null",
      `if [ "$SWARMDECK_TASK_ID" = "${swap}" ]; then mv "$SWARMDECK_HOME" "$SWARMDECK_HOME.moved" && ln -s "$SWARMDECK_HOME.moved" "$SWARMDECK_HOME"; fi`,
      "echo ok",
    ].join("\n");
    const run = worker(agent.token, ws.dir, { AGENT_COMMAND: script, POLL_WAIT_MS: "200" }, []);
    try {
      await run.waitFor(new RegExp(`task=${next} .*task (completed|released)`), 60_000);
    } finally {
      run.child.kill("SIGTERM");
      await run.exited;
    }
    const { task } = await getTask(target, next);
    expect(task.status, run.log()).toBe("completed");
    expect(task.attempts).toBe(1);
    expect(run.log()).toContain("(SWARMDECK_HOME) was a symlink: made a new folder there");
    expect(readFileSync(ws.home("SOUL.md"), "utf8")).toBe((await identity(target, agent.id, "soul")).content);
  });

  it("runs Claude Code in print mode with the system prompt, limits and hooks that sync", async () => {
    const agent = await agentWithToken(target);
    await saveIdentity(agent.id, "agent", `You are ${agent.name}.\n\nWork only on the task you were given.\n`);
    // The cage: the tools a worker's ALLOWED_TOOLS default to (worker/README.md), no WebFetch.
    await saveIdentity(
      agent.id,
      "capabilities",
      "tools:\n  allow: [Read, Write, Edit, Bash, Glob, Grep]\n  deny: []\nlimits:\n  max_turns: 50\n  max_task_minutes: 60\n",
    );
    const title = "write with claude";
    const taskId = await createTask(target, { title, agentId: agent.id });
    const run = worker(agent.token, workspace().dir, {
      HARNESS: "claude",
      CLAUDE_BIN,
      CLAUDE_CONFIG_DIR: folder("swarmdeck-wl-claude-"),
      MAX_TURNS: "7",
      ALLOWED_TOOLS: "Read,Edit,Write,WebFetch",
      SYNC_DEBOUNCE_MS: "10000",
    });
    expect(await run.exited, run.log()).toBe(0);
    const { task } = await getTask(target, taskId);
    expect(task.status, run.log()).toBe("completed");
    const report = claudeReport(task.output);
    // The cage narrowed by ALLOWED_TOOLS, never widened by it (no WebFetch); the smaller number of turns.
    expect(report).toMatchObject({
      maxTurns: 7,
      allowedTools: "Read,Write,Edit,mcp__swarm",
      mcpServers: ["swarm"],
      systemPromptStart: `You are ${agent.name}.`,
    });
    expect(report.promptStart).toContain(title);
    expect(report.disallowedTools.split(",")).toEqual(expect.arrayContaining(["Bash", "WebFetch", "WebSearch", "Glob", "Grep"]));
    expect(report.settingsPermissions.allow).toEqual(["Read", "Write", "Edit"]);
    // The PostToolUse hook synced TOOLS.md while the agent ran (the file watcher was slowed to 10 s).
    const tools = await agentVersions(agent.id, "tools");
    expect(tools).toHaveLength(1);
    expect(tools[0]).toMatchObject({ taskId });
    expect(tools[0]!.reason).toContain("(hook)");
    expect((await identity(target, agent.id, "tools")).content).toContain("- noted by fake claude");
  });

  it("gives Claude Code exactly the tools and turns of the agent's capabilities.yaml: a tool it leaves out is refused", async () => {
    const agent = await agentWithToken(target);
    await saveIdentity(
      agent.id,
      "capabilities",
      "tools:\n  allow: [Read, Grep]\n  deny: [Bash]\nlimits:\n  max_turns: 3\n  max_task_minutes: 20\n",
    );
    const taskId = await createTask(target, { title: "caged", agentId: agent.id });
    const run = worker(agent.token, workspace().dir, {
      HARNESS: "claude",
      CLAUDE_BIN,
      CLAUDE_CONFIG_DIR: folder("swarmdeck-wl-claude-"),
      MAX_TURNS: "40",
    });
    expect(await run.exited, run.log()).toBe(0);
    // The stand-in CLI, like the real one in print mode, refuses the Write the cage does not allow: the task fails.
    const { task } = await getTask(target, taskId);
    expect(task.status, run.log()).toBe("failed");
    expect(task.failureReason).toContain("permission to use Write was denied");
    expect(run.log()).toMatch(/capabilities: tools Read,Grep; denied Bash; at most 20 min, 3 turns/);
    expect(await agentVersions(agent.id, "tools")).toEqual([]);
    expect(await proposals(agent.id)).toEqual([]);
  });

  it("does not start the agent when capabilities.yaml is invalid, and says why", async () => {
    const agent = await agentWithToken(target);
    // Not a cage in any shape (the allowed tools are a mapping): nothing to read it as. The app
    // refuses to save such a file now, so it is stored as an app without the check stored it.
    await storeUncheckedIdentityVersion(target, agent.id, "CAPABILITIES", "network: off\ntools:\n  allow:\n    Read: yes\n");
    const ws = workspace();
    const taskId = await createTask(target, { title: "no cage", agentId: agent.id });
    const run = worker(agent.token, ws.dir, { AGENT_COMMAND: "touch agent-ran; echo ran" });
    expect(await run.exited, run.log()).toBe(0);
    const { task } = await getTask(target, taskId);
    expect(task.status, run.log()).toBe("failed");
    expect(task.failureReason).toMatch(/capabilities\.yaml is invalid[\s\S]*line 4: tools\.allow: /);
    expect(existsSync(ws.project("agent-ran"))).toBe(false);
  });

  it("runs an agent whose capabilities.yaml is in the shape agents had before the schema, as the same cage", async () => {
    const agent = await agentWithToken(target);
    // The file agents were created with before capabilities.yaml had a schema (lowercase tools, scopes,
    // token limits). The app refuses to save this shape now, so it is stored as the app then stored it.
    const older = [
      "tools:",
      "  allow: [read, write, edit, bash, grep, glob]",
      "  deny: []",
      "scopes:",
      "  filesystem: /workspace",
      "  network: none",
      "  git:",
      "    push: branches-only",
      "limits:",
      "  max_task_minutes: 45",
      "  max_tokens_per_task: 200000",
      "  max_concurrent_tasks: 1",
      "",
    ].join("\n");
    await storeUncheckedIdentityVersion(target, agent.id, "CAPABILITIES", older);
    const taskId = await createTask(target, { title: "older cage", agentId: agent.id });
    const run = worker(agent.token, workspace().dir, { HARNESS: "claude", CLAUDE_BIN, CLAUDE_CONFIG_DIR: folder("swarmdeck-wl-claude-") });
    expect(await run.exited, run.log()).toBe(0);
    // The task runs (its Write is allowed, as the file says), with the file's tools, its closed network and its time limit.
    const { task } = await getTask(target, taskId);
    expect(task.status, run.log()).toBe("completed");
    const report = claudeReport(task.output);
    expect(report.allowedTools).toBe("Read,Write,Edit,Bash,Grep,Glob,mcp__swarm");
    expect(report.disallowedTools.split(",")).toEqual(expect.arrayContaining(["WebFetch", "WebSearch"]));
    expect(run.log()).toMatch(/capabilities: tools Read,Write,Edit,Bash,Grep,Glob; denied WebFetch,WebSearch; at most 45 min/);
    // The operator's log says what was read differently and how to make it permanent.
    expect(run.log()).toContain("capabilities.yaml is in its older shape; enforcing its upgrade");
    expect(run.log()).toContain("limits.max_concurrent_tasks: dropped");
  });

  it("files an improvement proposal when idle for IDLE_PROPOSAL_AFTER", async () => {
    const agent = await agentWithToken(target);
    const run = worker(agent.token, workspace().dir, { AGENT_COMMAND: fixtureAgent("proposer.sh"), IDLE_PROPOSAL_AFTER: "100" }, []);
    try {
      await run.waitFor("idle: filed proposal", 60_000);
    } finally {
      run.child.kill("SIGTERM");
    }
    expect(await run.exited, run.log()).toBe(0);
    const filed = [...run.log().matchAll(/idle: filed proposal .* as task (\S+)/g)].map((match) => match[1]!);
    expect(filed.length, run.log()).toBeGreaterThan(0);
    const { task, events } = await getTask(target, filed[0]!);
    expect(task).toMatchObject({
      title: "Cache the dependency install in CI",
      description: "The CI job reinstalls every dependency on each run; caching ~/.npm would save minutes.",
      tags: ["proposal"],
    });
    // Filed by this agent's worker.
    expect(events[0]).toMatchObject({ type: "created", actorType: "worker", actorId: agent.id });
    // Nothing is left for an operator (or another test file) to find.
    for (const taskId of filed) await cancel(taskId);
  });

  it("exits 0 with --once when no task came", async () => {
    const agent = await agentWithToken(target);
    const run = worker(agent.token, workspace().dir, { AGENT_COMMAND: "true" });
    expect(await run.exited, run.log()).toBe(0);
    expect(run.log()).toContain("no task came");
  });

  it("creates a WORKSPACE_DIR that does not exist yet and keeps its liveness file (the compose health check) once it is prepared", async () => {
    const agent = await agentWithToken(target);
    const dir = path.join(workspace().dir, "not-there-yet");
    const run = worker(agent.token, dir, { AGENT_COMMAND: "true" });
    expect(await run.exited, run.log()).toBe(0);
    expect(existsSync(path.join(dir, "project"))).toBe(true);
    // docker-compose.yml's health check reads this file's age: a worker outside Docker (no entrypoint's mkdir) must write it too.
    expect(Date.parse(readFileSync(path.join(dir, "worker.alive"), "utf8").trim())).toBeGreaterThan(Date.now() - 60_000);
  });

  it("refuses to start with a clear message when the configuration is wrong", async () => {
    const run = spawnWorker({ SWARMDECK_URL: "not a url", SWARMDECK_TOKEN: "sdo_operator", WORKSPACE_DIR: workspace().dir });
    expect(await run.exited).toBe(2);
    expect(run.log()).toContain("SWARMDECK_URL");
    expect(run.log()).toContain("SWARMDECK_TOKEN must be a worker token");
    expect(run.log()).toContain("set AGENT_COMMAND (any command) or HARNESS=claude");
  });

  it("refuses a GIT_REMOTE or GIT_MAIN_BRANCH that git would read as an option", async () => {
    const agent = await agentWithToken(target);
    const run = spawnWorker({
      SWARMDECK_URL: target.baseUrl,
      SWARMDECK_TOKEN: agent.token,
      WORKSPACE_DIR: workspace().dir,
      AGENT_COMMAND: "true",
      GIT_REMOTE: "--upload-pack=touch /tmp/pwned",
      GIT_MAIN_BRANCH: "-main",
    });
    expect(await run.exited, run.log()).toBe(2);
    expect(run.log()).toContain("GIT_REMOTE must be a remote's name");
    expect(run.log()).toContain("GIT_MAIN_BRANCH must be a branch name");
  });

  it("refuses a WORKSPACE_DIR with a ':' in it (git could not be kept out of a repository above it) and creates nothing there", async () => {
    const agent = await agentWithToken(target);
    const dir = path.join(workspace().dir, "a:b");
    const run = spawnWorker({ SWARMDECK_URL: target.baseUrl, SWARMDECK_TOKEN: agent.token, WORKSPACE_DIR: dir, AGENT_COMMAND: "true" });
    expect(await run.exited, run.log()).toBe(2);
    expect(run.log()).toContain("WORKSPACE_DIR must not contain ':'");
    expect(existsSync(dir)).toBe(false);
  });

  it("refuses a WORKSPACE_DIR inside a git checkout and writes nothing into that checkout, not even its liveness file", async () => {
    const agent = await agentWithToken(target);
    const checkout = workspace().dir;
    execFileSync("git", ["init", "--quiet"], { cwd: checkout });
    const dir = path.join(checkout, "agents");
    mkdirSync(dir);
    const run = spawnWorker({ SWARMDECK_URL: target.baseUrl, SWARMDECK_TOKEN: agent.token, WORKSPACE_DIR: dir, AGENT_COMMAND: "true" });
    expect(await run.exited, run.log()).toBe(2);
    expect(run.log()).toContain(`WORKSPACE_DIR (${dir}) is inside the git checkout`);
    expect(execFileSync("git", ["status", "--porcelain", "--untracked-files=all"], { cwd: checkout, encoding: "utf8" })).toBe("");
  });
});

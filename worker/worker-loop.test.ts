// The real worker process (worker/main.ts) against an in-memory app that speaks
// the protocol of lib/contracts, with scripted agents from tests/fixtures/agents.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SETUP_MARKER_END, SETUP_MARKER_START } from "../lib/setup-script/compose";
import { type FakeApp, fakeTask, startFakeApp } from "./test-support/fake-app";
import { FIXTURES, spawnWorker } from "./test-support/run-worker";

let app: FakeApp;
let workspace: string;
const agent = (name: string) => path.join(FIXTURES, "agents", name);
const env = (extra: Record<string, string> = {}) => ({
  SWARMDECK_URL: app.url,
  SWARMDECK_TOKEN: app.token,
  WORKSPACE_DIR: workspace,
  ...extra,
});
/** The worker's layout (worker/workspace-layout.ts): the agent's own files in home/, its working folder in project/. */
const home = (file: string) => path.join(workspace, "home", file);
const project = (file: string) => path.join(workspace, "project", file);
const count = (text: string, needle: string) => text.split(needle).length - 1;
const puts = (slug: string) => app.calls.filter((call) => call.method === "PUT" && call.path === `/api/worker/identity/${slug}`);

beforeEach(async () => {
  app = await startFakeApp();
  workspace = mkdtempSync(path.join(tmpdir(), "swarmdeck-ws-"));
});
afterEach(async () => {
  await app.close();
  rmSync(workspace, { recursive: true, force: true });
});

describe("worker --once with a scripted agent", { timeout: 60_000 }, () => {
  it("builds the workspace, runs setup and agent, syncs identity, setup script and memory, completes", async () => {
    app.queue.push(fakeTask("t1", { title: "first" }));
    const worker = spawnWorker(env({ AGENT_COMMAND: agent("edit-identity.sh") }));
    expect(await worker.exited, worker.log()).toBe(0);

    const done = app.finished.get("t1");
    expect(done?.status, worker.log()).toBe("completed");
    expect(done?.body.output).toContain("agent output for t1");
    expect(done?.body.output).toContain("prompt began with: # Task t1");

    // TOOLS.md: applied as a new version, against the version it was written from, with the task id.
    const tools = puts("tools");
    expect(tools).toHaveLength(1);
    expect(tools[0]!.body).toMatchObject({ baseVersionId: "tools-1", taskId: "t1" });
    // The worker never declares an explicit request: only the task's grant can make one.
    expect(tools[0]!.body).not.toHaveProperty("trigger");
    expect(app.files.get("TOOLS")!.at(-1)!.content).toContain("ripgrep is installed by the setup script (task t1)");
    // SOUL.md and the setup script: the standard profile turns them into proposals.
    expect(app.state.proposals.map((p) => p.kind).sort()).toEqual(["SETUP_SCRIPT", "SOUL"]);
    expect(app.state.proposals[0]!.content).toContain("I double-check my work (task t1)");
    // The setup script comes back without markers, shebang or the global script.
    const stored = app.state.proposals.find((p) => p.kind === "SETUP_SCRIPT")!.content;
    expect(stored).toBe('echo "agent script ran" >> setup-runs.log\necho "agent added line ran" >> setup-runs.log # agent-added-t1');
    // memory/ files: agent scope, memory/shared/ swarm scope, with their path.
    expect(app.state.memories.map((m) => [m.path, m.scope, m.source, m.taskId]).sort()).toEqual([
      ["memory/build-notes.md", "agent", "file_index", "t1"],
      ["memory/shared/staging.md", "swarm", "file_index", "t1"],
    ]);
    expect(readFileSync(project("setup-runs.log"), "utf8")).toBe("global script ran\nagent script ran\n");
    expect(worker.log()).toMatch(/task=t1 .*sync TOOLS\.md: applied/);
    expect(worker.log()).toMatch(/task=t1 .*sync SOUL\.md: queued as proposal/);

    // A second task: one marker block, both scripts run again; the agent's new line is still a
    // proposal (standard profile), so the approved script runs without it.
    app.queue.push(fakeTask("t2", { title: "second" }));
    const second = spawnWorker(env({ AGENT_COMMAND: agent("edit-identity.sh") }));
    expect(await second.exited, second.log()).toBe(0);
    expect(app.finished.get("t2")?.status).toBe("completed");
    const startup = readFileSync(home("start-up.sh"), "utf8");
    expect(count(startup, SETUP_MARKER_START)).toBe(1);
    expect(count(startup, SETUP_MARKER_END)).toBe(1);
    expect(count(startup, "#!/bin/bash")).toBe(1);
    expect(readFileSync(project("setup-runs.log"), "utf8")).toBe(
      "global script ran\nagent script ran\nglobal script ran\nagent script ran\n",
    );
    // Unchanged memory files are not sent again; changed ones are.
    expect(app.state.memories.filter((m) => m.path === "memory/shared/staging.md")).toHaveLength(1);
    expect(app.state.memories.filter((m) => m.path === "memory/build-notes.md")).toHaveLength(2);
  });

  it("prepends the block to an operator's existing start-up file and keeps its content", async () => {
    mkdirSync(path.join(workspace, "home"));
    writeFileSync(home("start-up.bash"), '#!/bin/bash\necho "operator script ran" >> setup-runs.log\n');
    app.queue.push(fakeTask("t1"));
    const worker = spawnWorker(env({ AGENT_COMMAND: "cat >/dev/null; echo ok" }));
    expect(await worker.exited, worker.log()).toBe(0);
    const file = readFileSync(home("start-up.bash"), "utf8");
    expect(file.indexOf(SETUP_MARKER_START)).toBeLessThan(file.indexOf("operator script ran"));
    expect(readFileSync(project("setup-runs.log"), "utf8")).toBe("global script ran\nagent script ran\noperator script ran\n");
    expect(puts("setup-script")).toHaveLength(0);
  });

  it("fails the task with the tail of the output when the agent exits non-zero", async () => {
    app.queue.push(fakeTask("t1"));
    const worker = spawnWorker(env({ AGENT_COMMAND: agent("fail.sh") }));
    expect(await worker.exited).toBe(0);
    const done = app.finished.get("t1");
    expect(done?.status).toBe("failed");
    expect(done?.body.failureReason).toMatch(/exited with code 3/);
    expect(done?.body.failureReason).toContain("the tests do not compile (src/app.ts:12)");
  });

  it("claims no task when the setup script fails (strict by default) and reports the failure with its output", async () => {
    app.state.globalScript = "echo 'apt-get: unable to locate package nope' >&2\nexit 7";
    app.queue.push(fakeTask("t1"));
    const worker = spawnWorker(env({ AGENT_COMMAND: "touch agent-ran; cat >/dev/null" }));
    expect(await worker.exited).toBe(0);
    // The task is not touched: no claim, no failure, the agent never ran.
    expect(app.queue.map((task) => task.id)).toEqual(["t1"]);
    expect(app.finished.size).toBe(0);
    expect(app.calls.some((call) => call.path === "/api/worker/poll")).toBe(false);
    expect(() => readFileSync(project("agent-ran"))).toThrow();
    expect(app.state.setupReports).toEqual([
      expect.objectContaining({ status: "failed", exitCode: 7, blocking: true, hash: expect.stringMatching(/^[0-9a-f]{64}$/) }),
    ]);
    expect(app.state.setupReports[0].output).toContain("unable to locate package nope");
    expect(worker.log()).toContain("claiming no tasks until it changes");
  });

  it("runs the setup script once at start and again only when it changes, between tasks", async () => {
    app.queue.push(fakeTask("t1"), fakeTask("t2"));
    const worker = spawnWorker(env({ AGENT_COMMAND: "cat >/dev/null; echo done" }), []);
    await worker.waitFor(/task=t2 .*task completed/);
    expect(readFileSync(project("setup-runs.log"), "utf8")).toBe("global script ran\nagent script ran\n");
    app.state.globalScript = '#!/bin/bash\necho "global script v2 ran" >> setup-runs.log';
    await worker.waitFor("it changed, running it again");
    app.queue.push(fakeTask("t3"));
    await worker.waitFor(/task=t3 .*task completed/);
    worker.child.kill("SIGTERM");
    expect(await worker.exited).toBe(0);
    expect(readFileSync(project("setup-runs.log"), "utf8")).toBe(
      "global script ran\nagent script ran\nglobal script v2 ran\nagent script ran\n",
    );
    expect(app.state.setupReports.map((report) => report.status)).toEqual(["ok", "ok"]);
  });

  it("goes on after a failing setup script when STARTUP_SCRIPT_STRICT=false", async () => {
    app.state.globalScript = "exit 7";
    app.queue.push(fakeTask("t1"));
    const worker = spawnWorker(env({ AGENT_COMMAND: "cat >/dev/null; echo fine", STARTUP_SCRIPT_STRICT: "false" }));
    expect(await worker.exited).toBe(0);
    expect(app.finished.get("t1")?.status).toBe("completed");
  });

  it("stops the agent when the heartbeat says the task was cancelled, and does not finish it", async () => {
    const signalFile = path.join(workspace, "..", `signal-${path.basename(workspace)}`);
    app.queue.push(fakeTask("t1"));
    const worker = spawnWorker(env({ AGENT_COMMAND: agent("sleep.sh"), AGENT_SIGNAL_FILE: signalFile }));
    await worker.waitFor("agent started");
    app.cancelled.add("t1");
    expect(await worker.exited).toBe(0);
    expect(worker.log()).toContain("the task was cancelled");
    expect(readFileSync(signalFile, "utf8")).toContain("got SIGTERM");
    expect(app.finished.has("t1")).toBe(false);
    rmSync(signalFile, { force: true });
  });

  it("on SIGTERM stops the agent, gives the task back and exits 0", async () => {
    app.queue.push(fakeTask("t1"));
    const worker = spawnWorker(env({ AGENT_COMMAND: agent("sleep.sh") }), []);
    await worker.waitFor("agent started");
    worker.child.kill("SIGTERM");
    expect(await worker.exited).toBe(0);
    const done = app.finished.get("t1");
    expect(done?.status).toBe("released");
    expect(done?.body.reason).toMatch(/worker was stopped/);
  });

  it("resends a write that met a moved-on file (409) as a proposal against the current version", async () => {
    app.state.staleOnce.add("TOOLS");
    app.queue.push(fakeTask("t1"));
    const worker = spawnWorker(env({ AGENT_COMMAND: agent("edit-identity.sh") }));
    expect(await worker.exited, worker.log()).toBe(0);
    const tools = app.state.proposals.find((p) => p.kind === "TOOLS");
    // "review": a proposal on every profile, so the operator's newer version is never overwritten unseen.
    expect(tools?.mode).toBe("review");
    expect(tools?.base).toBe(app.files.get("TOOLS")!.at(-1)!.id);
    expect(tools?.content).toContain("ripgrep is installed");
    expect(worker.log()).toMatch(/sync TOOLS\.md: 409 stale_base: resent as proposal/);
  });

  it("gives the agent a working swarm CLI that never exposes the worker token", async () => {
    app.queue.push(fakeTask("t1"));
    const worker = spawnWorker(env({ AGENT_COMMAND: agent("swarm-cli.sh") }));
    expect(await worker.exited, worker.log()).toBe(0);
    const done = app.finished.get("t1");
    expect(done?.status, worker.log()).toBe("completed");
    expect(done?.body.output).toContain("proposed: soul waits for an operator's review");
    expect(done?.body.output).toContain("# pnpm tip");
    expect(done?.body.output).toContain("locked exit: 1");
    expect(done?.body.output).toContain("usage exit: 2");
    const heartbeat = app.calls.find((call) => call.path === "/api/worker/tasks/t1/heartbeat" && call.body?.progress);
    expect(heartbeat?.body.progress).toBe("reading the code base");
    // Exactly the CLI's proposal: the untouched SOUL.md in the workspace must not be sent over it at exit.
    expect(app.state.proposals).toEqual([
      expect.objectContaining({ kind: "SOUL", mode: "propose", base: "soul-1", content: "# Soul\nI am careful and kind.\n" }),
    ]);
    expect(puts("soul")).toHaveLength(1);
    expect(app.state.memories).toContainEqual(
      expect.objectContaining({ name: "pnpm tip", scope: "swarm", source: "manual", taskId: "t1" }),
    );
  });

  it("writes an applied `swarm identity write` into the workspace file, so it is not sent twice", async () => {
    await app.close();
    app = await startFakeApp({ profile: "power" });
    app.queue.push(fakeTask("t1"));
    const script = [
      "cat >/dev/null",
      "printf '# Soul\\nBold.\\n' > /tmp/soul-$$.md",
      "swarm identity write soul --file /tmp/soul-$$.md --reason 'be bold' || exit 5",
      "printf 'apt-get install -y ripgrep\\n' > /tmp/setup-$$.sh",
      "swarm identity write setup-script --file /tmp/setup-$$.sh --reason 'rg' || exit 6",
      "rm -f /tmp/soul-$$.md /tmp/setup-$$.sh",
    ].join("\n");
    const worker = spawnWorker(env({ AGENT_COMMAND: script }));
    expect(await worker.exited, worker.log()).toBe(0);
    expect(app.finished.get("t1")?.status, worker.log()).toBe("completed");
    expect(app.files.get("SOUL")!.at(-1)!.content).toBe("# Soul\nBold.\n");
    expect(readFileSync(home("SOUL.md"), "utf8")).toBe("# Soul\nBold.\n");
    expect(readFileSync(home("start-up.sh"), "utf8")).toContain(`apt-get install -y ripgrep\n${SETUP_MARKER_END}`);
    expect(puts("soul")).toHaveLength(1);
    expect(puts("setup-script")).toHaveLength(1);
  });

  it("runs Claude Code in print mode with the system prompt, limits and hooks that sync", async () => {
    app.queue.push(fakeTask("t1"));
    const worker = spawnWorker(
      env({
        HARNESS: "claude",
        CLAUDE_BIN: path.join(FIXTURES, "bin", "claude"),
        MAX_TURNS: "7",
        ALLOWED_TOOLS: "Read,Edit,Write,WebFetch",
        SYNC_DEBOUNCE_MS: "10000",
      }),
    );
    expect(await worker.exited, worker.log()).toBe(0);
    const output = app.finished.get("t1")?.body.output as string;
    const report = JSON.parse(/fake claude result (.*)/.exec(output)![1]!);
    // No capabilities.yaml: the default cage (no WebFetch), narrowed by ALLOWED_TOOLS, never widened by it.
    expect(report).toMatchObject({
      maxTurns: 7,
      allowedTools: "Read,Write,Edit,mcp__swarm",
      mcpServers: ["swarm"],
      systemPromptStart: "You are ada.",
      promptStart: "# Task t1",
    });
    expect(report.disallowedTools.split(",")).toEqual(expect.arrayContaining(["Bash", "WebFetch", "WebSearch", "Glob", "Grep"]));
    expect(report.settingsPermissions.allow).toEqual(["Read", "Write", "Edit"]);
    // The PostToolUse hook synced TOOLS.md while the agent ran (the file watcher was slowed to 10 s).
    expect(puts("tools")[0]?.body.reason).toContain("(hook)");
  });

  it("gives Claude Code exactly the tools and turns of the agent's capabilities.yaml: a tool it leaves out is refused", async () => {
    app.files.set("CAPABILITIES", [
      { id: "caps-1", content: "tools:\n  allow: [Read, Grep]\n  deny: [Bash]\nlimits:\n  max_turns: 3\n  max_task_minutes: 20\n" },
    ]);
    app.queue.push(fakeTask("t1"));
    const worker = spawnWorker(env({ HARNESS: "claude", CLAUDE_BIN: path.join(FIXTURES, "bin", "claude"), MAX_TURNS: "40" }));
    expect(await worker.exited, worker.log()).toBe(0);
    // The fake CLI, like the real one in print mode, refuses the Write the cage does not allow: the task fails.
    expect(app.finished.get("t1")?.status).toBe("failed");
    expect(app.finished.get("t1")?.body.failureReason).toContain("permission to use Write was denied");
    expect(worker.log()).toMatch(/capabilities: tools Read,Grep; denied Bash; at most 20 min, 3 turns/);
    expect(puts("tools")).toHaveLength(0);
  });

  it("does not start the agent when capabilities.yaml is invalid, and says why", async () => {
    // Not a cage in any shape (the allowed tools are a mapping): nothing to read it as.
    app.files.set("CAPABILITIES", [{ id: "caps-1", content: "network: off\ntools:\n  allow:\n    Read: yes\n" }]);
    app.queue.push(fakeTask("t1"));
    const worker = spawnWorker(env({ AGENT_COMMAND: "touch agent-ran; echo ran" }));
    expect(await worker.exited, worker.log()).toBe(0);
    expect(app.finished.get("t1")?.status).toBe("failed");
    expect(app.finished.get("t1")?.body.failureReason).toMatch(/capabilities\.yaml is invalid[\s\S]*line 4: tools\.allow: /);
    expect(() => readFileSync(project("agent-ran"))).toThrow();
  });

  it("runs an agent whose capabilities.yaml is in the shape agents had before the schema, as the same cage", async () => {
    // The file agents were created with before capabilities.yaml had a schema (lowercase tools, scopes, token limits).
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
    app.files.set("CAPABILITIES", [{ id: "caps-1", content: older }]);
    app.queue.push(fakeTask("t1"));
    const worker = spawnWorker(env({ HARNESS: "claude", CLAUDE_BIN: path.join(FIXTURES, "bin", "claude") }));
    expect(await worker.exited, worker.log()).toBe(0);
    // The task runs (its Write is allowed, as the file says), with the file's tools, its closed network and its time limit.
    expect(app.finished.get("t1")?.status, worker.log()).toBe("completed");
    const report = JSON.parse(/fake claude result (.*)/.exec(app.finished.get("t1")?.body.output as string)![1]!);
    expect(report.allowedTools).toBe("Read,Write,Edit,Bash,Grep,Glob,mcp__swarm");
    expect(report.disallowedTools.split(",")).toEqual(expect.arrayContaining(["WebFetch", "WebSearch"]));
    expect(worker.log()).toMatch(/capabilities: tools Read,Write,Edit,Bash,Grep,Glob; denied WebFetch,WebSearch; at most 45 min/);
    // The operator's log says what was read differently and how to make it permanent.
    expect(worker.log()).toContain("capabilities.yaml is in its older shape; enforcing its upgrade");
    expect(worker.log()).toContain("limits.max_concurrent_tasks: dropped");
  });

  it("files an improvement proposal when idle for IDLE_PROPOSAL_AFTER", async () => {
    const worker = spawnWorker(env({ AGENT_COMMAND: agent("proposer.sh"), IDLE_PROPOSAL_AFTER: "100" }), []);
    await worker.waitFor("idle: filed proposal");
    worker.child.kill("SIGTERM");
    expect(await worker.exited).toBe(0);
    expect(app.state.created[0]).toEqual({
      title: "Cache the dependency install in CI",
      description: "The CI job reinstalls every dependency on each run; caching ~/.npm would save minutes.",
      tags: ["proposal"],
    });
  });

  it("exits 0 with --once when no task came", async () => {
    const worker = spawnWorker(env({ AGENT_COMMAND: "true" }));
    expect(await worker.exited).toBe(0);
    expect(worker.log()).toContain("no task came");
  });

  it("refuses to start with a clear message when the configuration is wrong", async () => {
    const worker = spawnWorker({ SWARMDECK_URL: "not a url", SWARMDECK_TOKEN: "sdo_operator", WORKSPACE_DIR: workspace });
    expect(await worker.exited).toBe(2);
    expect(worker.log()).toContain("SWARMDECK_URL");
    expect(worker.log()).toContain("SWARMDECK_TOKEN must be a worker token");
    expect(worker.log()).toContain("set AGENT_COMMAND (any command) or HARNESS=claude");
  });
});

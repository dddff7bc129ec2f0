// The post-task reflection (P5): the prompt and output rules, then the real worker
// process against the in-memory app with the fake Claude Code CLI (a continued
// session) and with a plain REFLECTION_COMMAND.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isNothingNew, MAX_REFLECTION_CHARS, reflectionMemoryContent, reflectionMemoryName, reflectionPrompt } from "./reflection";
import { type FakeApp, type FakeCall, fakeTask, startFakeApp } from "./test-support/fake-app";
import { FIXTURES, spawnWorker } from "./test-support/run-worker";

describe("reflection prompt and output rules", () => {
  it("asks the P5 questions in Swarmdeck's terms", () => {
    const prompt = reflectionPrompt({
      title: "fix the login",
      outcome: { status: "completed" },
      startupFile: "start-up.sh",
      home: "/ws/home",
    });
    expect(prompt).toContain('The task "fix the login" is over (it completed)');
    for (const part of [
      "`/ws/home/memory/`",
      "`/ws/home/memory/shared/`",
      "`/ws/home/TOOLS.md`",
      "swarm identity propose identity --file",
      "`/ws/home/start-up.sh`",
      "# === End agent-managed setup ===",
    ]) {
      expect(prompt).toContain(part);
    }
    expect(prompt).toContain("Only update files if there's a genuine change");
    expect(prompt).toContain("reply with exactly: No significant learnings.");
    const failed = reflectionPrompt({
      title: "x",
      outcome: { status: "failed", detail: "the agent exited with code 3:\nlots of output" },
      startupFile: "start-up.bash",
      home: "/ws/home",
    });
    expect(failed).toContain("(it failed: the agent exited with code 3:)");
    expect(failed).not.toContain("lots of output");
    expect(failed).toContain("`/ws/home/start-up.bash`");
  });

  it("keeps nothing when the answer is empty or says there was nothing new", () => {
    for (const text of [
      "",
      "  \n",
      "No significant learnings.",
      "**No significant learnings.**",
      "no significant learnings",
      "Nothing new.",
    ]) {
      expect(isNothingNew(text), text).toBe(true);
      expect(reflectionMemoryContent(text)).toBeNull();
    }
    const lesson = "- No significant learnings about the API, but the build needs NODE_OPTIONS=--max-old-space-size=4096 ".repeat(4);
    expect(isNothingNew(lesson)).toBe(false);
    expect(reflectionMemoryContent(`\n  - vitest needs --pool=forks here\n\n`)).toBe("- vitest needs --pool=forks here");
  });

  it("bounds a long answer to its end, and the name to 200 characters", () => {
    const long = `${"a".repeat(MAX_REFLECTION_CHARS)}THE END`;
    const kept = reflectionMemoryContent(long)!;
    expect(kept.endsWith("THE END")).toBe(true);
    expect(kept).toMatch(/^\[\.\.\. 7 characters cut \.\.\.\]\n/);
    expect(reflectionMemoryName("fix the login")).toBe("Reflection: fix the login");
    expect(reflectionMemoryName("t".repeat(500))).toHaveLength(200);
  });
});

let app: FakeApp;
let workspace: string;
let claudeHome: string;
const claude = path.join(FIXTURES, "bin", "claude");
const agent = (name: string) => path.join(FIXTURES, "agents", name);
const env = (extra: Record<string, string> = {}) => ({
  SWARMDECK_URL: app.url,
  SWARMDECK_TOKEN: app.token,
  WORKSPACE_DIR: workspace,
  CLAUDE_CONFIG_DIR: claudeHome,
  ...extra,
});
const claudeEnv = (extra: Record<string, string> = {}) =>
  env({ HARNESS: "claude", CLAUDE_BIN: claude, FAKE_CLAUDE_REPORT_FILE: path.join(claudeHome, "report.jsonl"), ...extra });
const reports = () =>
  readFileSync(path.join(claudeHome, "report.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
const reflections = () => app.state.memories.filter((m) => m.source === "reflection");
const callIndex = (test: (call: FakeCall) => boolean) => app.calls.findIndex(test);

beforeEach(async () => {
  app = await startFakeApp();
  workspace = mkdtempSync(path.join(tmpdir(), "swarmdeck-ws-"));
  claudeHome = mkdtempSync(path.join(tmpdir(), "swarmdeck-claude-"));
});
afterEach(async () => {
  await app.close();
  rmSync(workspace, { recursive: true, force: true });
  rmSync(claudeHome, { recursive: true, force: true });
});

describe("worker: post-task reflection", { timeout: 60_000 }, () => {
  it("HARNESS=claude continues the task's session; the answer becomes a reflection memory before the task completes", async () => {
    app.queue.push(fakeTask("t1", { title: "speed up the build" }));
    const lesson = "- The build is faster with NODE_OPTIONS=--max-old-space-size=4096\n- Read the failing test's output first";
    const worker = spawnWorker(
      claudeEnv({
        MAX_TURNS: "7",
        ALLOWED_TOOLS: "Read,Edit,Write",
        FAKE_CLAUDE_REFLECTION: lesson,
        FAKE_CLAUDE_REFLECTION_FILE: "memory/build.md",
      }),
    );
    expect(await worker.exited, worker.log()).toBe(0);

    // The follow-up turn continued the task's own conversation with the same system prompt and tools, within the task's turn limit.
    const [task, reflection] = reports();
    expect(task).toMatchObject({ continued: false, maxTurns: 7, promptStart: "# Task t1" });
    expect(reflection).toMatchObject({
      continued: true,
      sessionId: task.sessionId,
      turnsBefore: 1,
      firstPromptStart: "# Task t1",
      promptStart: "# Post-task reflection",
      // 10 turns at most, and never more than the task's own cage (MAX_TURNS 7 narrows it here).
      maxTurns: 7,
      allowedTools: "Read,Write,Edit",
      systemPromptStart: "You are ada.",
    });

    // One reflection memory, the agent's own, for this task.
    expect(reflections()).toEqual([
      { name: "Reflection: speed up the build", content: lesson, scope: "agent", source: "reflection", taskId: "t1" },
    ]);
    // The file it wrote was indexed too, and both reached the app before the outcome.
    const fileMemory = app.state.memories.find((m) => m.path === "memory/build.md");
    expect(fileMemory).toMatchObject({ source: "file_index", scope: "agent", taskId: "t1" });
    expect(fileMemory.content).toContain("NODE_OPTIONS");
    const completed = callIndex((call) => call.path === "/api/worker/tasks/t1/complete");
    expect(callIndex((call) => call.body?.source === "reflection")).toBeLessThan(completed);
    expect(callIndex((call) => call.body?.path === "memory/build.md")).toBeLessThan(completed);

    // The task's output is the task run's, not the reflection's.
    const output = app.finished.get("t1")?.body.output as string;
    expect(app.finished.get("t1")?.status).toBe("completed");
    expect(output).toMatch(/^fake claude result /);
    expect(output).not.toContain("NODE_OPTIONS");
    expect(worker.log()).toMatch(/task=t1 .*reflection stored as a memory/);
  });

  it("stores nothing when the reflection says there were no significant learnings", async () => {
    app.queue.push(fakeTask("t1"));
    const worker = spawnWorker(claudeEnv());
    expect(await worker.exited, worker.log()).toBe(0);
    expect(reports().map((r) => r.continued)).toEqual([false, true]);
    expect(reflections()).toEqual([]);
    expect(app.finished.get("t1")?.status).toBe("completed");
    expect(worker.log()).toContain("reflection: nothing new to remember (not stored)");
  });

  it("REFLECTION=off runs no follow-up turn and stores no reflection", async () => {
    app.queue.push(fakeTask("t1"));
    const worker = spawnWorker(claudeEnv({ REFLECTION: "off", FAKE_CLAUDE_REFLECTION: "- a lesson that must not be stored" }));
    expect(await worker.exited, worker.log()).toBe(0);
    expect(reports().map((r) => r.continued)).toEqual([false]);
    expect(reflections()).toEqual([]);
    expect(app.finished.get("t1")?.status).toBe("completed");
    expect(worker.log()).toContain("reflection skipped: REFLECTION=off");
  });

  it("a plain AGENT_COMMAND reflects only with REFLECTION_COMMAND; a failed task reflects too and stays failed", async () => {
    app.queue.push(fakeTask("t1", { title: "no follow-up" }));
    const plain = spawnWorker(env({ AGENT_COMMAND: agent("fail.sh") }));
    expect(await plain.exited, plain.log()).toBe(0);
    expect(plain.log()).toContain("reflection skipped: AGENT_COMMAND has no follow-up turn (set REFLECTION_COMMAND to run one)");
    expect(reflections()).toEqual([]);

    app.queue.push(fakeTask("t2", { title: "compile the app" }));
    const worker = spawnWorker(env({ AGENT_COMMAND: agent("fail.sh"), REFLECTION_COMMAND: agent("reflect.sh") }));
    expect(await worker.exited, worker.log()).toBe(0);
    const failed = app.finished.get("t2");
    expect(failed?.status, worker.log()).toBe("failed");
    expect(failed?.body.failureReason).toMatch(/^the agent exited with code 3/);
    expect(failed?.body.output).toBe("working on it\n");
    expect(reflections()).toEqual([
      expect.objectContaining({ name: "Reflection: compile the app", scope: "agent", source: "reflection", taskId: "t2" }),
    ]);
    expect(reflections()[0].content).toContain("- The task failed; its output began with: working on it");
    expect(app.state.memories).toContainEqual(
      expect.objectContaining({ path: "memory/lessons/t2.md", source: "file_index", taskId: "t2" }),
    );
  });

  it("a failing or slow reflection never changes the task's outcome; it is logged and noted as progress", async () => {
    app.queue.push(fakeTask("t1"));
    const failing = spawnWorker(claudeEnv({ FAKE_CLAUDE_EXIT: "1", FAKE_CLAUDE_REFLECTION: "- half a lesson" }));
    expect(await failing.exited, failing.log()).toBe(0);
    expect(app.finished.get("t1")?.status).toBe("completed");
    expect(app.finished.get("t1")?.body.output).toMatch(/^fake claude result /);
    expect(reflections()).toEqual([]);
    expect(failing.log()).toMatch(/task=t1 .*reflection exited with code 1; nothing stored: fake claude: failing with exit 1/);
    const note = app.calls.find((call) => call.path === "/api/worker/tasks/t1/heartbeat" && call.body?.progress);
    expect(note?.body.progress).toMatch(/^post-task reflection exited with code 1: /);

    app.queue.push(fakeTask("t2"));
    const started = Date.now();
    const slow = spawnWorker(
      env({ AGENT_COMMAND: "cat >/dev/null; echo done", REFLECTION_COMMAND: "cat >/dev/null; sleep 30", REFLECTION_TIMEOUT_MS: "1000" }),
    );
    expect(await slow.exited, slow.log()).toBe(0);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(app.finished.get("t2")).toEqual({
      status: "completed",
      body: { output: "done\n", session: { source: "output", transcript: "done" } },
    });
    expect(slow.log()).toContain("reflection timed out after 1000 ms (REFLECTION_TIMEOUT_MS); nothing stored");
    const slowNote = app.calls.find((call) => call.path === "/api/worker/tasks/t2/heartbeat" && call.body?.progress);
    expect(slowNote?.body.progress).toMatch(/^post-task reflection timed out after 1000 ms/);
  });

  it("SIGTERM during the reflection stops it, and the task's outcome is still sent (not given back)", async () => {
    app.queue.push(fakeTask("t1"));
    const worker = spawnWorker(
      env({ AGENT_COMMAND: "cat >/dev/null; echo done", REFLECTION_COMMAND: "cat >/dev/null; echo '- half'; sleep 30" }),
      [],
    );
    await worker.waitFor("agent started (reflection, REFLECTION_COMMAND)");
    worker.child.kill("SIGTERM");
    expect(await worker.exited, worker.log()).toBe(0);
    expect(app.finished.get("t1")).toEqual({
      status: "completed",
      body: { output: "done\n", session: { source: "output", transcript: "done" } },
    });
    expect(reflections()).toEqual([]);
  });

  it("a cancelled task gets no reflection", async () => {
    const signalFile = path.join(claudeHome, "signal");
    app.queue.push(fakeTask("t1"));
    const worker = spawnWorker(
      env({ AGENT_COMMAND: agent("sleep.sh"), AGENT_SIGNAL_FILE: signalFile, REFLECTION_COMMAND: agent("reflect.sh") }),
    );
    await worker.waitFor("agent started");
    app.cancelled.add("t1");
    expect(await worker.exited).toBe(0);
    expect(worker.log()).toContain("the task was cancelled");
    expect(worker.log()).not.toContain("reflection");
    expect(reflections()).toEqual([]);
    expect(app.finished.has("t1")).toBe(false);
  });
});

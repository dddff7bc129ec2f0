// The post-task reflection (worker/README.md, "Post-task reflection (P5)"): the real
// worker process against the real app (global setup), with the stand-in Claude Code
// CLI (a continued session) or a plain REFLECTION_COMMAND. What the worker sent is
// read back through the operator API: the task, its timeline, the agent's memories.
// The prompt and output rules are unit tests in worker/reflection.test.ts; the
// reflection memory's fields and search, and a failed task's reflection, are in
// tests/worker-full-loop.test.ts.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURES, spawnWorker } from "../worker/test-support/run-worker";
import { server } from "./support/client";
import { agentMemories, agentWithToken, call, createTask, getTask, progressNotes, type Target } from "./worker-helpers";

let target: Target;
const dirs: string[] = [];
const fixtureAgent = (name: string) => path.join(FIXTURES, "agents", name);

function tempDir(prefix: string) {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

function worker(token: string, dir: string, env: Record<string, string>, args = ["--once"]) {
  return spawnWorker({ SWARMDECK_URL: target.baseUrl, SWARMDECK_TOKEN: token, WORKSPACE_DIR: dir, POLL_WAIT_MS: "2000", ...env }, args);
}

/** HARNESS=claude with the stand-in CLI; it appends one report line per run to claudeHome/report.jsonl. */
function claudeEnv(claudeHome: string, extra: Record<string, string> = {}) {
  return {
    HARNESS: "claude",
    CLAUDE_BIN: path.join(FIXTURES, "bin", "claude"),
    CLAUDE_CONFIG_DIR: claudeHome,
    FAKE_CLAUDE_REPORT_FILE: path.join(claudeHome, "report.jsonl"),
    ...extra,
  };
}

const reports = (claudeHome: string) =>
  readFileSync(path.join(claudeHome, "report.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));

const reflections = (agentId: string) => agentMemories(target, agentId, "reflection");

/** The memory the app makes of a completed task's output (docs/architecture.md: "output indexed into memory"). */
async function completionMemory(agentId: string, taskId: string) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const found = (await agentMemories(target, agentId, "task_completion")).find((m) => m.sourceTaskId === taskId);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`task ${taskId} left no task_completion memory`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

beforeAll(() => {
  target = server();
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("worker: post-task reflection", { timeout: 120_000 }, () => {
  it("HARNESS=claude continues the task's session; the answer becomes a reflection memory before the task completes", async () => {
    const agent = await agentWithToken(target);
    const title = "speed up the build";
    const taskId = await createTask(target, { title, agentId: agent.id });
    const claudeHome = tempDir("swarmdeck-claude-");
    const lesson = "- The build is faster with NODE_OPTIONS=--max-old-space-size=4096\n- Read the failing test's output first";
    const run = worker(
      agent.token,
      tempDir("swarmdeck-ws-"),
      claudeEnv(claudeHome, {
        MAX_TURNS: "7",
        ALLOWED_TOOLS: "Read,Edit,Write",
        FAKE_CLAUDE_REFLECTION: lesson,
        FAKE_CLAUDE_REFLECTION_FILE: "memory/build.md",
      }),
    );
    expect(await run.exited, run.log()).toBe(0);
    expect((await getTask(target, taskId)).task.status, run.log()).toBe("completed");

    // The follow-up turn continued the task's own conversation with the same system prompt and tools, within the task's turn limit.
    const runs = reports(claudeHome);
    expect(runs, run.log()).toHaveLength(2);
    const [task, reflection] = runs;
    expect(task).toMatchObject({ continued: false, maxTurns: 7 });
    expect(task.promptStart).toContain(title);
    const { body: preview } = await call(target, "GET", `/api/v1/agents/${agent.id}/prompt`);
    expect(task.systemPromptStart).toBe(preview.systemPrompt.split("\n")[0]);
    expect(reflection).toMatchObject({
      continued: true,
      sessionId: task.sessionId,
      turnsBefore: 1,
      firstPromptStart: task.promptStart,
      promptStart: "# Post-task reflection",
      // 10 turns at most, and never more than the task's own cage (MAX_TURNS 7 narrows it here).
      maxTurns: 7,
      systemPromptStart: task.systemPromptStart,
      systemPromptChars: task.systemPromptChars,
    });
    // The tools both ALLOWED_TOOLS and the agent's capabilities.yaml allow, as for the task.
    expect(reflection.allowedTools.split(",").sort()).toEqual(["Edit", "Read", "Write"]);
    expect(task.allowedTools.split(",")).toEqual(expect.arrayContaining(reflection.allowedTools.split(",")));

    // One reflection memory, of this task.
    const stored = await reflections(agent.id);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ content: lesson, sourceTaskId: taskId });
    // The file it wrote was indexed too, as the agent's own memory of this task.
    const fileChunks = (await agentMemories(target, agent.id, "file_index")).filter((m) => m.sourcePath === "memory/build.md");
    expect(fileChunks.length).toBeGreaterThan(0);
    for (const chunk of fileChunks) expect(chunk).toMatchObject({ scope: "agent", sourceTaskId: taskId });
    expect(fileChunks.map((m) => m.content).join("\n")).toContain("NODE_OPTIONS");
    // Both reached the app before the outcome: the memory the app made of the completed task is newer than either.
    const completion = await completionMemory(agent.id, taskId);
    for (const memory of [...stored, ...fileChunks]) expect(memory.id).toBeLessThan(completion.id);

    expect(run.log()).toMatch(new RegExp(`task=${taskId} .*reflection stored as a memory`));
  });

  it("stores nothing when the reflection says there were no significant learnings", async () => {
    const agent = await agentWithToken(target);
    const taskId = await createTask(target, { title: "nothing to learn", agentId: agent.id });
    const claudeHome = tempDir("swarmdeck-claude-");
    const run = worker(agent.token, tempDir("swarmdeck-ws-"), claudeEnv(claudeHome));
    expect(await run.exited, run.log()).toBe(0);
    expect(reports(claudeHome).map((r) => r.continued)).toEqual([false, true]);
    expect(await reflections(agent.id)).toEqual([]);
    expect((await getTask(target, taskId)).task.status).toBe("completed");
    expect(run.log()).toContain("reflection: nothing new to remember (not stored)");
  });

  it("REFLECTION=off runs no follow-up turn and stores no reflection", async () => {
    const agent = await agentWithToken(target);
    const taskId = await createTask(target, { title: "no reflection", agentId: agent.id });
    const claudeHome = tempDir("swarmdeck-claude-");
    const run = worker(
      agent.token,
      tempDir("swarmdeck-ws-"),
      claudeEnv(claudeHome, { REFLECTION: "off", FAKE_CLAUDE_REFLECTION: "- a lesson that must not be stored" }),
    );
    expect(await run.exited, run.log()).toBe(0);
    expect(reports(claudeHome).map((r) => r.continued)).toEqual([false]);
    expect(await reflections(agent.id)).toEqual([]);
    expect((await getTask(target, taskId)).task.status).toBe("completed");
    expect(run.log()).toContain("reflection skipped: REFLECTION=off");
  });

  it("a plain AGENT_COMMAND reflects only with REFLECTION_COMMAND; a failed task reflects too and stays failed", async () => {
    const agent = await agentWithToken(target);
    const dir = tempDir("swarmdeck-ws-");
    const first = await createTask(target, { title: "no follow-up", agentId: agent.id });
    const plain = worker(agent.token, dir, { AGENT_COMMAND: fixtureAgent("fail.sh") });
    expect(await plain.exited, plain.log()).toBe(0);
    expect((await getTask(target, first)).task.status, plain.log()).toBe("failed");
    expect(plain.log()).toContain("reflection skipped: AGENT_COMMAND has no follow-up turn (set REFLECTION_COMMAND to run one)");
    expect(await reflections(agent.id)).toEqual([]);

    // The failed task's reason and the reflection's name, scope and text are asserted in tests/worker-full-loop.test.ts.
    const second = await createTask(target, { title: "compile the app", agentId: agent.id });
    const run = worker(agent.token, dir, { AGENT_COMMAND: fixtureAgent("fail.sh"), REFLECTION_COMMAND: fixtureAgent("reflect.sh") });
    expect(await run.exited, run.log()).toBe(0);
    const { task } = await getTask(target, second);
    expect(task.status, run.log()).toBe("failed");
    expect(task.output).toBe("working on it\n");
    expect(await reflections(agent.id)).toEqual([expect.objectContaining({ sourceTaskId: second })]);
    expect(await agentMemories(target, agent.id, "file_index")).toContainEqual(
      expect.objectContaining({ sourcePath: `memory/lessons/${second}.md`, sourceTaskId: second }),
    );
  });

  it("a failing or slow reflection never changes the task's outcome; it is logged and noted as progress", async () => {
    const agent = await agentWithToken(target);
    const dir = tempDir("swarmdeck-ws-");
    const first = await createTask(target, { title: "reflection fails", agentId: agent.id });
    const failing = worker(
      agent.token,
      dir,
      claudeEnv(tempDir("swarmdeck-claude-"), { FAKE_CLAUDE_EXIT: "1", FAKE_CLAUDE_REFLECTION: "- half a lesson" }),
    );
    expect(await failing.exited, failing.log()).toBe(0);
    const failed = (await getTask(target, first)).task;
    expect(failed.status, failing.log()).toBe("completed");
    expect(failed.output).toMatch(/^fake claude result /);
    expect(await reflections(agent.id)).toEqual([]);
    expect(failing.log()).toMatch(
      new RegExp(`task=${first} .*reflection exited with code 1; nothing stored: fake claude: failing with exit 1`),
    );
    expect(await progressNotes(target, first)).toContainEqual(expect.stringMatching(/^post-task reflection exited with code 1: /));

    const second = await createTask(target, { title: "reflection hangs", agentId: agent.id });
    const slow = worker(agent.token, dir, {
      AGENT_COMMAND: "cat >/dev/null; echo done",
      REFLECTION_COMMAND: "cat >/dev/null; sleep 30",
      REFLECTION_TIMEOUT_MS: "1000",
    });
    expect(await slow.exited, slow.log()).toBe(0);
    const { task } = await getTask(target, second);
    expect(task.status, slow.log()).toBe("completed");
    expect(task.output).toBe("done\n");
    expect(await reflections(agent.id)).toEqual([]);
    expect(slow.log()).toContain("reflection timed out after 1000 ms (REFLECTION_TIMEOUT_MS); nothing stored");
    expect(await progressNotes(target, second)).toContainEqual(expect.stringMatching(/^post-task reflection timed out after 1000 ms/));
  });

  it("SIGTERM during the reflection stops it, and the task's outcome is still sent (not given back)", async () => {
    const agent = await agentWithToken(target);
    const taskId = await createTask(target, { title: "stopped while reflecting", agentId: agent.id });
    const run = worker(
      agent.token,
      tempDir("swarmdeck-ws-"),
      { AGENT_COMMAND: "cat >/dev/null; echo done", REFLECTION_COMMAND: "cat >/dev/null; echo '- half'; sleep 30" },
      [],
    );
    await run.waitFor("agent started (reflection, REFLECTION_COMMAND)");
    run.child.kill("SIGTERM");
    expect(await run.exited, run.log()).toBe(0);
    const { task, events } = await getTask(target, taskId);
    expect(task.status, run.log()).toBe("completed");
    expect(task.output).toBe("done\n");
    expect(events.map((event: { type: string }) => event.type)).not.toContain("released");
    expect(await reflections(agent.id)).toEqual([]);
  });

  it("a cancelled task gets no reflection", async () => {
    const agent = await agentWithToken(target);
    const dir = tempDir("swarmdeck-ws-");
    const signalFile = path.join(tempDir("swarmdeck-signal-"), "signal");
    const taskId = await createTask(target, { title: "cancelled while running", agentId: agent.id });
    const run = worker(agent.token, dir, {
      AGENT_COMMAND: fixtureAgent("sleep.sh"),
      AGENT_SIGNAL_FILE: signalFile,
      REFLECTION_COMMAND: fixtureAgent("reflect.sh"),
    });
    await run.waitFor("agent started");
    const cancel = await call(target, "PATCH", `/api/v1/tasks/${taskId}`, { action: "cancel", reason: "not needed" });
    expect(cancel.status, JSON.stringify(cancel.body)).toBe(200);
    expect(await run.exited, run.log()).toBe(0);
    expect(run.log()).toContain("the task was cancelled");
    expect(run.log()).not.toContain("reflection");
    expect(await reflections(agent.id)).toEqual([]);
    // No outcome was sent: the task stays cancelled, without an output.
    const { task } = await getTask(target, taskId);
    expect(task.status).toBe("cancelled");
    expect(task.output).toBeNull();
  });
});

// The session a summary is made from, read from a transcript in the JSONL format
// Claude Code writes under its projects folder (records chained by uuid; user
// prompts as strings, assistant turns as content blocks; tool results as user
// records; summary / file-history-snapshot / system records beside them).
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { bounded, claudeProjectFolder, readableClaudeTranscript, sessionTranscript } from "./session-transcript";

const cwd = "/work/ws/project";
const base = { parentUuid: null, isSidechain: false, userType: "external", cwd, sessionId: "5f1c", version: "2.0.14" };
const lines = [
  { type: "summary", summary: "Fixing the login test", leafUuid: "u4" },
  {
    ...base,
    type: "user",
    uuid: "u1",
    timestamp: "2026-11-23T10:00:00.000Z",
    message: { role: "user", content: "# Task: fix the login test" },
  },
  {
    ...base,
    type: "assistant",
    uuid: "u2",
    message: {
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "claude-sonnet",
      content: [
        { type: "thinking", thinking: "private reasoning", signature: "x" },
        { type: "text", text: "The test fails on a missing await." },
        {
          type: "tool_use",
          id: "toolu_1",
          name: "Edit",
          input: { file_path: `${cwd}/src/login.test.ts`, old_string: "login()", new_string: "await login()" },
        },
      ],
    },
  },
  {
    ...base,
    type: "user",
    uuid: "u3",
    message: {
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "The file was updated." }] }],
    },
    toolUseResult: { filePath: `${cwd}/src/login.test.ts` },
  },
  { type: "file-history-snapshot", messageId: "m1", snapshot: {} },
  { ...base, type: "system", subtype: "turn_duration", content: "12 s" },
  {
    ...base,
    type: "assistant",
    uuid: "u4",
    message: { role: "assistant", content: [{ type: "text", text: "Fixed: login() needed await." }] },
  },
];
const jsonl = `${lines.map((line) => JSON.stringify(line)).join("\n")}\n{not json\n`;

describe("a Claude Code session transcript", () => {
  it("reads as the conversation: prompts, answers, tool uses and results, nothing else", () => {
    const text = readableClaudeTranscript(jsonl);
    expect(text.split("\n\n")).toEqual([
      "User: # Task: fix the login test",
      `Assistant: The test fails on a missing await.\n[tool Edit] {"file_path":"${cwd}/src/login.test.ts","old_string":"login()","new_string":"await login()"}`,
      "User: [tool result] The file was updated.",
      "Assistant: Fixed: login() needed await.",
    ]);
    expect(text).not.toContain("private reasoning");
    expect(text).not.toContain("Fixing the login test");
  });

  it("keeps the beginning and the end of a long session, with a marker", () => {
    const long = `${"a".repeat(50)}${"b".repeat(100)}${"c".repeat(50)}`;
    const kept = bounded(long, 90);
    expect(kept.startsWith("a".repeat(30))).toBe(true);
    expect(kept.endsWith("c".repeat(50))).toBe(true);
    expect(kept).toContain("[... 110 characters left out ...]");
  });
});

describe("sessionTranscript", () => {
  let config: string;
  beforeEach(() => {
    config = mkdtempSync(path.join(tmpdir(), "swarmdeck-claude-"));
  });
  afterEach(() => rmSync(config, { recursive: true, force: true }));

  it("finds the task's transcript under CLAUDE_CONFIG_DIR/projects, ignoring older sessions; else the output", async () => {
    const folder = path.join(config, "projects", claudeProjectFolder(cwd));
    expect(claudeProjectFolder(cwd)).toBe("-work-ws-project");
    mkdirSync(folder, { recursive: true });
    writeFileSync(
      path.join(folder, "old.jsonl"),
      `${JSON.stringify({ ...base, type: "user", message: { role: "user", content: "an older task" } })}\n`,
    );
    const longAgo = new Date(Date.now() - 3_600_000);
    utimesSync(path.join(folder, "old.jsonl"), longAgo, longAgo);
    writeFileSync(path.join(folder, "5f1c.jsonl"), jsonl);
    const env = { ...process.env, CLAUDE_CONFIG_DIR: config };
    const found = await sessionTranscript({ harness: "claude", cwd, since: Date.now() - 60_000, output: "stdout", env });
    expect(found?.source).toBe("claude_transcript");
    expect(found?.transcript).toContain("Fixed: login() needed await.");
    expect(found?.transcript).not.toContain("an older task");
    // No transcript (another agent, or Claude wrote none): the captured output; nothing at all: nothing.
    expect(await sessionTranscript({ harness: "command", cwd, since: 0, output: " it built \n", env })).toEqual({
      source: "output",
      transcript: "it built",
    });
    expect(await sessionTranscript({ harness: "claude", cwd: "/elsewhere", since: 0, output: "", env })).toBeNull();
  });

  it("without CLAUDE_CONFIG_DIR reads ~/.claude of the HOME Claude Code ran with (the agent's user's), not the worker's", async () => {
    const folder = path.join(config, ".claude", "projects", claudeProjectFolder(cwd));
    mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, "5f1c.jsonl"), jsonl);
    const { CLAUDE_CONFIG_DIR: _unset, ...rest } = process.env;
    const found = await sessionTranscript({
      harness: "claude",
      cwd,
      since: Date.now() - 60_000,
      output: "stdout",
      env: { ...rest, HOME: config },
    });
    expect(found?.source).toBe("claude_transcript");
    expect(found?.transcript).toContain("Fixed: login() needed await.");
  });

  it("does not follow a transcript name the agent made a symlink to a file outside its config folder", async () => {
    const folder = path.join(config, "projects", claudeProjectFolder(cwd));
    mkdirSync(folder, { recursive: true });
    const secret = mkdtempSync(path.join(tmpdir(), "swarmdeck-secret-"));
    try {
      // A file of the worker's, in Claude Code's own format, that the agent cannot read itself.
      writeFileSync(path.join(secret, "worker.jsonl"), jsonl.replace("Fixed: login() needed await.", "SWARMDECK_TOKEN=sdw_secret"));
      symlinkSync(path.join(secret, "worker.jsonl"), path.join(folder, "5f1c.jsonl"));
      const env = { ...process.env, CLAUDE_CONFIG_DIR: config };
      const found = await sessionTranscript({ harness: "claude", cwd, since: Date.now() - 60_000, output: "agent output", env });
      expect(found).toEqual({ source: "output", transcript: "agent output" });
    } finally {
      rmSync(secret, { recursive: true, force: true });
    }
  });
});

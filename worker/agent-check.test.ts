// The start-up check of the agent's program and the fetch gate's log rule. The worker
// process refusing to start, giving back and pausing against the real app is
// tests/worker-broken-worker.test.ts.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { agentProgram, checkAgentProgram, isSpawnFailure } from "./agent-check";
import { fetchTransition } from "./checkout-gate";

const dir = mkdtempSync(path.join(tmpdir(), "swarmdeck-agent-check-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the agent's program", () => {
  const command = (agentCommand: string) => agentProgram({ harness: "command", agentCommand, claudeBin: "claude" });

  it("is CLAUDE_BIN for the claude harness, and AGENT_COMMAND's first plain word otherwise", () => {
    expect(agentProgram({ harness: "claude", agentCommand: "", claudeBin: "/opt/claude" })).toEqual({
      program: "/opt/claude",
      setting: "CLAUDE_BIN",
    });
    expect(command("./my-agent.sh --fast")).toEqual({ program: "./my-agent.sh", setting: "AGENT_COMMAND" });
    expect(command("  node agent.mjs")).toEqual({ program: "node", setting: "AGENT_COMMAND" });
  });

  it("is left to the shell when the command starts with an assignment, a shell word, quoting or an expansion", () => {
    for (const agentCommand of [
      "FOO=1 ./agent.sh",
      "exec ./agent.sh",
      "cd sub && ./a.sh",
      "'./my agent.sh'",
      "$AGENT",
      "(./a.sh)",
      "{ ./a.sh; }",
    ]) {
      expect(command(agentCommand), agentCommand).toBeNull();
    }
  });

  it("can be started when it is an executable file or a name on PATH (a builtin counts); else the check says why", () => {
    const ok = path.join(dir, "ok.sh");
    writeFileSync(ok, "#!/bin/sh\n");
    chmodSync(ok, 0o755);
    const plain = path.join(dir, "plain.sh");
    writeFileSync(plain, "#!/bin/sh\n");
    chmodSync(plain, 0o644);
    expect(checkAgentProgram(ok, dir)).toBeNull();
    expect(checkAgentProgram("./ok.sh", dir)).toBeNull();
    expect(checkAgentProgram("sh", dir)).toBeNull();
    expect(checkAgentProgram("true", dir)).toBeNull();
    expect(checkAgentProgram(plain, dir)).toBe("not executable");
    expect(checkAgentProgram(path.join(dir, "missing.sh"), dir)).toBe("no such file");
    expect(checkAgentProgram(dir, dir)).toBe("no such file");
    expect(checkAgentProgram("no-such-program-anywhere", dir, { ...process.env, PATH: "/usr/bin:/bin" })).toBe(
      "not found on PATH (/usr/bin:/bin)",
    );
  });

  it("a spawn failure is a missing or non-executable program, nothing else", () => {
    const error = (code: string) => Object.assign(new Error(code), { code }) as NodeJS.ErrnoException;
    expect(isSpawnFailure(error("ENOENT"))).toBe(true);
    expect(isSpawnFailure(error("EACCES"))).toBe(true);
    expect(isSpawnFailure(error("EPIPE"))).toBe(false);
    expect(isSpawnFailure(undefined)).toBe(false);
  });
});

describe("the fetch gate's log", () => {
  it("speaks once per change: the first failure, a different failure, the recovery; nothing while the state holds", () => {
    const down = { ok: false as const, reason: "fatal: unreachable" };
    expect(fetchTransition(null, { ok: true }, "origin")).toBeNull();
    expect(fetchTransition({ ok: true }, { ok: true }, "origin")).toBeNull();
    expect(fetchTransition(null, down, "origin")).toEqual({
      level: "error",
      text: "git fetch origin fails: claiming no tasks until it works again (retrying with backoff): fatal: unreachable",
    });
    expect(fetchTransition(down, down, "origin")).toBeNull();
    expect(fetchTransition(down, { ok: false, reason: "fatal: other" }, "origin")?.level).toBe("error");
    expect(fetchTransition(down, { ok: true }, "origin")).toEqual({ level: "info", text: "git fetch origin works again: claiming tasks" });
  });
});

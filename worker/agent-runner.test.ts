// The agent's process (worker/agent-runner.ts) with real processes: when a run is over,
// and what of its process group is left then (worker/README.md, "What the agent leaves running").
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startAgent } from "./agent-runner";
import { isRunning } from "./test-support/processes";

let root: string;
const escaped: number[] = [];
const pidIn = (file: string) => Number(readFileSync(file, "utf8").trim());
async function until(test: () => boolean, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!test() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
}
const agent = (shell: string, onOutput?: (chunk: string) => void) =>
  startAgent({ command: { shell }, cwd: root, env: process.env, stdin: "", maxOutputChars: 10_000, killGraceMs: 1500, onOutput });

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), "swarmdeck-agent-"));
});
afterEach(() => {
  for (const pid of escaped.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
  rmSync(root, { recursive: true, force: true });
});

describe("an agent run", () => {
  it("is over when the agent exits: what it left in its group is killed, and one in a session of its own no longer holds the run", async () => {
    const group = path.join(root, "group");
    const session = path.join(root, "session");
    const run = agent(
      [
        `sleep 310 & echo $! > ${group}`,
        `setsid sh -c 'echo $$ > ${session}; exec sleep 311' &`,
        `while [ ! -s ${session} ]; do sleep 0.05; done`,
        "echo all done",
      ].join("\n"),
    );
    const result = await run.done;
    escaped.push(pidIn(session));
    expect(result).toMatchObject({ code: 0, stopped: false, leftInGroup: true, stdout: "all done\n" });
    expect(isRunning(pidIn(group))).toBe(false);
    // Out of the group's reach (the task runner's sweep by environment takes it: tests/worker-background-processes.test.ts).
    expect(isRunning(pidIn(session))).toBe(true);
  });

  it("that exited by itself is not made 'stopped' by a limit that hits while its output drains", async () => {
    const session = path.join(root, "session");
    let said = false;
    const run = agent(
      `setsid sh -c 'echo $$ > ${session}; exec sleep 312' &\nwhile [ ! -s ${session} ]; do sleep 0.05; done\necho finished`,
      (chunk) => {
        if (chunk.includes("finished")) said = true;
      },
    );
    await until(() => said);
    escaped.push(pidIn(session));
    // Its exit follows its last line; the pipes stay open (the sleep holds them) for the drain.
    await new Promise((resolve) => setTimeout(resolve, 200));
    run.stop("timed out");
    const result = await run.done;
    expect(result).toMatchObject({ code: 0, stopped: false });
  });

  it("once stopped, gives the rest of its group the grace: a child that cleans up on SIGTERM finishes, one that ignores it is killed", async () => {
    const cleaned = path.join(root, "cleaned");
    const stubborn = path.join(root, "stubborn");
    const run = agent(
      [
        // Cleans up for 300 ms after SIGTERM, then exits.
        `bash -c 'trap "sleep 0.3; echo yes > ${cleaned}; exit 0" TERM; while true; do sleep 0.05; done' &`,
        // Ignores SIGTERM.
        `bash -c 'trap "" TERM; echo $$ > ${stubborn}; while true; do sleep 0.05; done' > /dev/null 2>&1 &`,
        `while [ ! -s ${stubborn} ]; do sleep 0.05; done`,
        "echo started",
        "wait",
      ].join("\n"),
      undefined,
    );
    await until(() => existsSync(stubborn) && readFileSync(stubborn, "utf8").trim() !== "");
    run.stop("cancelled");
    const result = await run.done;
    expect(result.stopped).toBe(true);
    expect(readFileSync(cleaned, "utf8")).toBe("yes\n");
    expect(isRunning(pidIn(stubborn))).toBe(false);
  });
});

// The agent's start-up script (worker/setup-runner.ts) with real processes.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runSetupScript } from "./setup-runner";
import { isRunning } from "./test-support/processes";

let root: string;
const started: number[] = [];

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), "swarmdeck-setup-"));
});
afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
  rmSync(root, { recursive: true, force: true });
});

describe("the start-up script", () => {
  it("is done when it exits: a service it leaves in the background runs on for the agent, even one that still writes to its output", async () => {
    const pids = path.join(root, "service-pids");
    // One service sends its output elsewhere; the other keeps the script's and writes to it once the script is long over.
    writeFileSync(
      path.join(root, "setup.sh"),
      `#!/bin/bash\necho "installing"\nsleep 304 > /dev/null 2>&1 &\necho $! > ${pids}\n(sleep 2; echo "service is up"; echo $BASHPID >> ${pids}; exec sleep 305) &\necho "ready"\n`,
    );
    const result = await runSetupScript({ homeDir: root, cwd: root, startupFile: "setup.sh", env: process.env, timeoutMs: 1500 });
    expect(result).toMatchObject({ ok: true, code: 0, output: "installing\nready\n" });
    // The talking one writes its pid only after its write to the old output went through (a SIGPIPE would have ended it).
    const deadline = Date.now() + 10_000;
    while (readFileSync(pids, "utf8").trim().split("\n").length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const [quiet, talking] = readFileSync(pids, "utf8").trim().split("\n").map(Number) as [number, number];
    started.push(quiet, ...(talking ? [talking] : []));
    expect(isRunning(quiet)).toBe(true);
    expect(talking, "the service that wrote to its output after the script ended").toBeGreaterThan(0);
    expect(isRunning(talking)).toBe(true);
  });

  it("is stopped, with what it started, when it runs past its time", async () => {
    writeFileSync(path.join(root, "setup.sh"), `#!/bin/bash\necho "downloading"\nsleep 306 &\nsleep 307\n`);
    const result = await runSetupScript({ homeDir: root, cwd: root, startupFile: "setup.sh", env: process.env, timeoutMs: 1000 });
    expect(result.ok).toBe(false);
    expect(result.output).toBe("downloading\n\n[setup script timed out after 1000 ms]");
    expect(execFileSync("ps", ["-eo", "args"], { encoding: "utf8" })).not.toMatch(/^sleep 30[67]$/m);
  });
});

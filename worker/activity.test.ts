// The agent's signs of life from file changes (worker/activity.ts): a checkout where
// folders appear and vanish at once (a build's temporary directories, git's own
// .git/rebase-merge) keeps being watched without ending the worker, and git's own
// bookkeeping under .git is not taken for the agent's work.
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ActivityWatch } from "./activity";

let dir: string;
let activity: ActivityWatch;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "swarmdeck-activity-"));
  execFileSync("git", ["init", "--quiet", "--initial-branch=main", dir]);
  activity = new ActivityWatch({ timeLimitMinutes: 60, noProgressMinutes: 60, onLimit: () => {} });
});

afterEach(() => {
  activity.stop();
  rmSync(dir, { recursive: true, force: true });
});

const run = (script: string) =>
  new Promise<void>((resolve, reject) => {
    const child = spawn("bash", ["-c", script], { cwd: dir, stdio: "ignore" });
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`script exited with ${code}`))));
  });

/** Writes the file until the watch reports it (the watch starts asynchronously). */
async function seen(file: string) {
  const deadline = Date.now() + 20_000;
  while (activity.last.what !== `file change: ${file}`) {
    if (Date.now() > deadline) throw new Error(`never reported ${file}; last: ${activity.last.what}`);
    writeFileSync(path.join(dir, file), String(Date.now()));
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("the agent's file changes as signs of life", () => {
  it("keeps watching while folders appear and vanish at once, and reports the changes after it", async () => {
    activity.start([dir]);
    await seen("before.txt");
    // Node's own recursive watcher threw an uncaught ENOENT here (it scans each new folder,
    // which is already gone): the worker process ended in the middle of the task.
    await run("for i in $(seq 1 300); do mkdir -p build/a/b/c; echo $i > build/a/b/c/out.o; rm -rf build; done");
    await seen("after.txt");
    expect(activity.limitHit).toBeNull();
  });

  it("does not walk into a folder a symlink points to", async () => {
    const outside = mkdtempSync(path.join(tmpdir(), "swarmdeck-outside-"));
    try {
      mkdirSync(path.join(outside, "sub"));
      symlinkSync(outside, path.join(dir, "link"));
      activity.start([dir]);
      await seen("inside.txt");
      // A link to / or /proc would otherwise have the worker walk the machine.
      writeFileSync(path.join(outside, "sub", "elsewhere.txt"), "not the agent's folder");
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(activity.last.what).not.toMatch(/link\//);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it("does not count git's own work under .git as the agent's", async () => {
    activity.start([dir]);
    await seen("work.txt");
    const git = "git -c user.name=t -c user.email=t@t.local";
    await run(
      `${git} add work.txt && ${git} commit --quiet -m one && ${git} checkout --quiet -b side && ${git} commit --quiet --allow-empty -m two && ${git} checkout --quiet main && ${git} gc --quiet`,
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(activity.last.what).toBe("file change: work.txt");
  });
});

// The git workflow against real local bare repositories (reference 004). The worker
// process doing it against the real app is tests/worker-git-workspace.test.ts.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { git } from "./git";
import {
  type AgentRerun,
  finishTaskBranch,
  isGitWorkspace,
  prepareTaskBranch,
  type RemoteUrls,
  remoteUrls,
  repairCheckout,
  verifyWorkspace,
} from "./git-workflow";

let root: string;
let origin: string;
const sh = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
const settings = (dir: string) => ({ dir, remote: "origin", main: "main" });

function clone(name: string): string {
  const dir = path.join(root, name);
  sh(root, "clone", "--quiet", origin, dir);
  sh(dir, "config", "user.name", name);
  sh(dir, "config", "user.email", `${name}@test.local`);
  return dir;
}

function commitToMain(dir: string, file: string, content: string) {
  sh(dir, "checkout", "--quiet", "main");
  sh(dir, "pull", "--quiet", "origin", "main");
  writeFileSync(path.join(dir, file), content);
  sh(dir, "add", file);
  sh(dir, "commit", "--quiet", "-m", `edit ${file}`);
  sh(dir, "push", "--quiet", "origin", "main");
}

const originFile = (file: string) => sh(origin, "show", `main:${file}`);
const noRerun: AgentRerun = async () => ({ ok: true, output: "" });

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), "swarmdeck-git-"));
  origin = path.join(root, "origin.git");
  execFileSync("git", ["init", "--quiet", "--bare", "--initial-branch=main", origin]);
  const seed = clone("seed");
  writeFileSync(path.join(seed, "app.txt"), "line 1\nline 2\nline 3\n");
  sh(seed, "add", ".");
  sh(seed, "commit", "--quiet", "-m", "initial");
  sh(seed, "push", "--quiet", "origin", "HEAD:main");
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("git workflow", () => {
  it("works on task-<id>, commits, and fast-forwards main", async () => {
    const dir = clone("ada");
    expect(await isGitWorkspace(dir)).toBe(true);
    expect(await isGitWorkspace(path.join(dir, ".git"))).toBe(false);
    const branch = await prepareTaskBranch({ ...settings(dir), taskId: "t1" });
    expect(branch).toBe("task-t1");
    expect(sh(dir, "branch", "--show-current")).toBe("task-t1");
    writeFileSync(path.join(dir, "feature.txt"), "new feature\n");
    const outcome = await finishTaskBranch({
      ...settings(dir),
      branch,
      message: "task-t1: add a feature",
      verifyRetries: 2,
      rerun: noRerun,
    });
    expect(outcome).toMatchObject({ kind: "merged", branch: "task-t1", attempts: 1, verifyRuns: 1 });
    expect(originFile("feature.txt")).toBe("new feature");
    expect(sh(origin, "log", "-1", "--format=%s", "main")).toBe("task-t1: add a feature");
    expect(sh(origin, "ls-tree", "--name-only", "main").split("\n").sort()).toEqual(["app.txt", "feature.txt"]);
    // Merged, the branch is gone, on the remote and in the clone (main has its commits).
    expect(sh(origin, "branch", "--list", "task-t1")).toBe("");
    expect(sh(dir, "branch", "--list", "task-t1")).toBe("");
    expect(sh(dir, "branch", "--show-current")).toBe("main");
  });

  it("fails a task whose agent removed .git, and touches no repository around the folder", async () => {
    // The folder sits inside another checkout: git would find that one if it looked upwards.
    const outer = clone("outer");
    const outerHead = sh(outer, "rev-parse", "HEAD");
    sh(outer, "clone", "--quiet", origin, "project");
    const dir = path.join(outer, "project");
    const branch = await prepareTaskBranch({ ...settings(dir), taskId: "t1" });
    writeFileSync(path.join(dir, "feature.txt"), "new feature\n");
    rmSync(path.join(dir, ".git"), { recursive: true, force: true });
    expect((await git(dir, ["rev-parse", "--show-toplevel"])).ok).toBe(false);
    // The next task's checkout (fetch, checkout -f, clean) finds no repository either, rather than the enclosing one.
    await expect(prepareTaskBranch({ ...settings(dir), taskId: "t2" })).rejects.toThrow(/not a git repository/);
    expect(readFileSync(path.join(dir, "feature.txt"), "utf8")).toBe("new feature\n");
    const outcome = await finishTaskBranch({
      ...settings(dir),
      branch,
      message: "task-t1: add a feature",
      verifyRetries: 0,
      rerun: noRerun,
    });
    expect(outcome).toMatchObject({ kind: "failed", refused: true });
    expect(outcome.kind === "failed" && outcome.reason).toContain(`${path.join(dir, ".git")} is gone`);
    expect(sh(outer, "rev-parse", "HEAD")).toBe(outerHead);
    expect(sh(outer, "status", "--porcelain")).toBe("?? project/");
    expect(sh(origin, "ls-tree", "--name-only", "main")).toBe("app.txt");
  });

  it("does not land anything on main once the task was stopped (cancelled, taken back)", async () => {
    const dir = clone("ada");
    const before = sh(origin, "rev-parse", "main");
    const branch = await prepareTaskBranch({ ...settings(dir), taskId: "t1" });
    writeFileSync(path.join(dir, "feature.txt"), "late\n");
    const outcome = await finishTaskBranch({
      ...settings(dir),
      branch,
      message: "m",
      verifyRetries: 0,
      rerun: noRerun,
      stopped: () => true,
    });
    expect(outcome).toEqual({ kind: "failed", branch, reason: "stopped before merging into main" });
    expect(sh(origin, "rev-parse", "main")).toBe(before);
    // What did not land stays on its branch, for an operator to look at.
    expect(sh(origin, "show", "task-t1:feature.txt")).toBe("late");
  });

  it("merges even when the remote refuses to delete branches, and says the branch is left there", async () => {
    sh(origin, "config", "receive.denyDeletes", "true");
    const dir = clone("ada");
    const branch = await prepareTaskBranch({ ...settings(dir), taskId: "t1" });
    writeFileSync(path.join(dir, "feature.txt"), "kept\n");
    const outcome = await finishTaskBranch({ ...settings(dir), branch, message: "m", verifyRetries: 0, rerun: noRerun });
    expect(outcome).toMatchObject({ kind: "merged", leftover: expect.stringContaining("could not delete task-t1 on origin") });
    expect(originFile("feature.txt")).toBe("kept");
    expect(sh(origin, "branch", "--list", "task-t1")).toContain("task-t1");
  });

  it("completes with no changes when the agent changed nothing", async () => {
    const dir = clone("ada");
    const branch = await prepareTaskBranch({ ...settings(dir), taskId: "t1" });
    expect(await finishTaskBranch({ ...settings(dir), branch, message: "m", verifyRetries: 2, rerun: noRerun })).toEqual({
      kind: "no_changes",
      branch,
    });
    expect(sh(dir, "branch", "--list", "task-t1")).toBe("");
    expect(sh(origin, "branch", "--list", "task-t1")).toBe("");
  });

  it("drops leftovers of an earlier task and starts from the latest main", async () => {
    const dir = clone("ada");
    await prepareTaskBranch({ ...settings(dir), taskId: "t1" });
    writeFileSync(path.join(dir, "half-done.txt"), "abandoned\n");
    writeFileSync(path.join(dir, "app.txt"), "scribbled\n");
    commitToMain(clone("bob"), "from-bob.txt", "bob was here\n");
    await prepareTaskBranch({ ...settings(dir), taskId: "t2" });
    expect(existsSync(path.join(dir, "half-done.txt"))).toBe(false);
    expect(readFileSync(path.join(dir, "app.txt"), "utf8")).toBe("line 1\nline 2\nline 3\n");
    expect(readFileSync(path.join(dir, "from-bob.txt"), "utf8")).toBe("bob was here\n");
    // The abandoned task's branch is gone from the clone: only the current task's is left.
    expect(sh(dir, "branch", "--list", "task-*")).toBe("* task-t2");
  });

  it("runs ./verify.sh and re-runs the agent with the errors until it passes", async () => {
    const dir = clone("ada");
    commitToMain(dir, "verify.sh", '#!/bin/bash\nif [ -f BROKEN ]; then echo "lint: BROKEN must not exist"; exit 1; fi\n');
    const branch = await prepareTaskBranch({ ...settings(dir), taskId: "t1" });
    writeFileSync(path.join(dir, "feature.txt"), "x\n");
    writeFileSync(path.join(dir, "BROKEN"), "");
    const prompts: string[] = [];
    const outcome = await finishTaskBranch({
      ...settings(dir),
      branch,
      message: "m",
      verifyRetries: 2,
      rerun: async (prompt) => {
        prompts.push(prompt);
        unlinkSync(path.join(dir, "BROKEN"));
        return { ok: true, output: "" };
      },
    });
    expect(outcome).toMatchObject({ kind: "merged", verifyRuns: 2 });
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toContain("lint: BROKEN must not exist");
  });

  it("fails with the verification errors after VERIFY_RETRIES fix attempts, leaving main alone", async () => {
    const dir = clone("ada");
    commitToMain(dir, "verify.sh", '#!/bin/bash\necho "3 tests failed"; exit 1\n');
    const before = sh(origin, "rev-parse", "main");
    const branch = await prepareTaskBranch({ ...settings(dir), taskId: "t1" });
    writeFileSync(path.join(dir, "feature.txt"), "x\n");
    let reruns = 0;
    const outcome = await finishTaskBranch({
      ...settings(dir),
      branch,
      message: "m",
      verifyRetries: 2,
      rerun: async () => {
        reruns += 1;
        return { ok: true, output: "" };
      },
    });
    expect(outcome.kind).toBe("failed");
    expect(outcome.kind === "failed" && outcome.reason).toMatch(
      /verification failed after 2 fix attempt\(s\): \.\/verify\.sh exited with 1:\n3 tests failed/,
    );
    expect(reruns).toBe(2);
    expect(sh(origin, "rev-parse", "main")).toBe(before);
  });

  it("says how a silent verify.sh failed: its exit code, and that it printed nothing", async () => {
    const dir = clone("ada");
    commitToMain(dir, "verify.sh", "#!/bin/bash\nexit 3\n");
    const branch = await prepareTaskBranch({ ...settings(dir), taskId: "t1" });
    writeFileSync(path.join(dir, "feature.txt"), "x\n");
    const outcome = await finishTaskBranch({ ...settings(dir), branch, message: "m", verifyRetries: 0, rerun: noRerun });
    expect(outcome.kind === "failed" && outcome.reason).toMatch(/\.\/verify\.sh exited with 3 \(no output\)$/);
  });

  it("stops a verify.sh that runs past its time, with everything it started, and says so", async () => {
    const dir = clone("ada");
    const pids = path.join(root, "verify-pids");
    // A foreground child that holds the output open, and a background one.
    writeFileSync(path.join(dir, "verify.sh"), `#!/bin/bash\necho "running the suite"\nsleep 300 &\necho $! > ${pids}\nsleep 301\n`, {
      mode: 0o755,
    });
    const result = await verifyWorkspace(dir, 1500);
    expect(result.ok).toBe(false);
    expect(result.errors).toMatch(/^\.\/verify\.sh was stopped:\nrunning the suite\n\n\[verify\.sh was stopped after 1500 ms\]$/);
    const background = Number(readFileSync(pids, "utf8"));
    expect(existsSync(`/proc/${background}`) && !readFileSync(`/proc/${background}/stat`, "utf8").includes(") Z ")).toBe(false);
    expect(execFileSync("ps", ["-eo", "args"], { encoding: "utf8" })).not.toMatch(/^sleep 30[01]$/m);
  });

  it("takes a verify.sh that passed as passed, though what it left running holds its output past its time", async () => {
    const dir = clone("ada");
    const session = path.join(root, "verify-session");
    writeFileSync(
      path.join(dir, "verify.sh"),
      `#!/bin/bash\nsetsid sh -c 'echo $$ > ${session}; exec sleep 313' &\nwhile [ ! -s ${session} ]; do sleep 0.05; done\necho "all green"\n`,
      { mode: 0o755 },
    );
    // Its time ends while the worker still waits for the pipes the sleep holds.
    const result = await verifyWorkspace(dir, 500);
    try {
      process.kill(Number(readFileSync(session, "utf8")), "SIGKILL");
    } catch {}
    expect(result).toEqual({ ok: true, errors: "" });
  });

  it("finds conflict markers in a file whose name git would quote (non-ASCII)", async () => {
    const dir = clone("ada");
    writeFileSync(path.join(dir, "notes-ü.md"), "<<<<<<< ours\na\n=======\nb\n>>>>>>> theirs\n");
    const result = await verifyWorkspace(dir);
    expect(result).toEqual({ ok: false, errors: "merge conflict markers left in: notes-ü.md" });
  });

  it("refuses a folder that is a git repository of its own, which would be committed as a link to nowhere", async () => {
    const dir = clone("ada");
    const web = path.join(dir, "web");
    execFileSync("git", ["init", "--quiet", web]);
    writeFileSync(path.join(web, "index.js"), "console.log(1)\n");
    const result = await verifyWorkspace(dir);
    expect(result.ok).toBe(false);
    expect(result.errors).toBe(
      "web/ is a git repository of its own (web/.git): its files would not be committed, only a link to a commit that exists nowhere else; remove web/.git",
    );
  });

  it("repairs a checkout left with a stale lock, hidden changes and ignore rules, so that the next task commits what it changes", async () => {
    const dir = clone("ada");
    writeFileSync(path.join(dir, "other.txt"), "o\n");
    sh(dir, "add", "other.txt");
    sh(dir, "commit", "--quiet", "-m", "other");
    sh(dir, "update-index", "--skip-worktree", "app.txt");
    sh(dir, "update-index", "--assume-unchanged", "other.txt");
    writeFileSync(path.join(dir, ".git", "index.lock"), "");
    writeFileSync(path.join(dir, ".git", "info", "exclude"), "# git's own comment\ndocs/\n");
    expect(await repairCheckout(dir)).toEqual([
      "a stale .git/index.lock was removed",
      "ignore rules in .git/info/exclude were cleared (docs/)",
      "skip-worktree / assume-unchanged flags were cleared (app.txt, other.txt)",
    ]);
    // The changes a task makes there are seen again.
    writeFileSync(path.join(dir, "app.txt"), "changed\n");
    writeFileSync(path.join(dir, "other.txt"), "changed too\n");
    mkdirSync(path.join(dir, "docs"));
    writeFileSync(path.join(dir, "docs", "design.md"), "x\n");
    expect(execFileSync("git", ["status", "--porcelain"], { cwd: dir, encoding: "utf8" }).trimEnd().split("\n").sort()).toEqual([
      " M app.txt",
      " M other.txt",
      "?? docs/",
    ]);
    expect(await repairCheckout(dir)).toEqual([]);
  });

  it("refuses conflict markers left in changed files", async () => {
    const dir = clone("ada");
    const branch = await prepareTaskBranch({ ...settings(dir), taskId: "t1" });
    writeFileSync(path.join(dir, "app.txt"), "<<<<<<< ours\nline 1\n=======\nline one\n>>>>>>> theirs\n");
    const outcome = await finishTaskBranch({ ...settings(dir), branch, message: "m", verifyRetries: 0, rerun: noRerun });
    expect(outcome.kind === "failed" && outcome.reason).toContain("merge conflict markers left in: app.txt");
  });

  it("rebases onto a main that moved on meanwhile and still fast-forwards", async () => {
    const dir = clone("ada");
    const branch = await prepareTaskBranch({ ...settings(dir), taskId: "t1" });
    writeFileSync(path.join(dir, "feature.txt"), "mine\n");
    commitToMain(clone("bob"), "other.txt", "theirs\n");
    const outcome = await finishTaskBranch({ ...settings(dir), branch, message: "task-t1: mine", verifyRetries: 0, rerun: noRerun });
    expect(outcome).toMatchObject({ kind: "merged", attempts: 1 });
    expect(originFile("feature.txt")).toBe("mine");
    expect(originFile("other.txt")).toBe("theirs");
    expect(sh(origin, "rev-list", "--count", "main")).toBe("3");
  });

  it("has the agent resolve a real conflict, then merges", async () => {
    const dir = clone("ada");
    const branch = await prepareTaskBranch({ ...settings(dir), taskId: "t1" });
    writeFileSync(path.join(dir, "app.txt"), "line 1\nline 2 by ada\nline 3\n");
    commitToMain(clone("bob"), "app.txt", "line 1\nline 2 by bob\nline 3\n");
    const prompts: string[] = [];
    const outcome = await finishTaskBranch({
      ...settings(dir),
      branch,
      message: "m",
      verifyRetries: 0,
      rerun: async (prompt) => {
        prompts.push(prompt);
        writeFileSync(path.join(dir, "app.txt"), "line 1\nline 2 by ada and bob\nline 3\n");
        return { ok: true, output: "" };
      },
    });
    expect(outcome).toMatchObject({ kind: "merged" });
    expect(prompts[0]).toMatch(/Resolve the merge conflicts[\s\S]*- app\.txt/);
    expect(originFile("app.txt")).toBe("line 1\nline 2 by ada and bob\nline 3");
  });

  it("gives up after 3 attempts when the conflict is not resolved, and main keeps the other agent's work", async () => {
    const dir = clone("ada");
    const branch = await prepareTaskBranch({ ...settings(dir), taskId: "t1" });
    writeFileSync(path.join(dir, "app.txt"), "line 1\nline 2 by ada\nline 3\n");
    commitToMain(clone("bob"), "app.txt", "line 1\nline 2 by bob\nline 3\n");
    let reruns = 0;
    const outcome = await finishTaskBranch({
      ...settings(dir),
      branch,
      message: "m",
      verifyRetries: 0,
      rerun: async () => {
        reruns += 1;
        return { ok: true, output: "" };
      },
    });
    expect(outcome.kind).toBe("failed");
    expect(outcome.kind === "failed" && outcome.reason).toMatch(
      /could not merge task-t1 into main after 3 attempts: the agent could not resolve the conflicts/,
    );
    expect(reruns).toBe(3);
    expect(originFile("app.txt")).toContain("line 2 by bob");
  });
});

describe("the checkout's .git/config, which the agent can write", () => {
  let decoy: string;
  /** Another repository with a main of its own: where an agent would send the project's work, or take main from. */
  beforeEach(() => {
    decoy = path.join(root, "decoy.git");
    sh(root, "clone", "--quiet", "--bare", origin, decoy);
    const other = path.join(root, "decoy-seed");
    sh(root, "clone", "--quiet", decoy, other);
    writeFileSync(path.join(other, "decoy.txt"), "not the project\n");
    sh(other, "add", ".");
    sh(other, "-c", "user.name=d", "-c", "user.email=d@test.local", "commit", "--quiet", "-m", "decoy commit");
    sh(other, "push", "--quiet", "origin", "HEAD:main");
  });

  async function pinnedClone(name: string): Promise<{ dir: string; pinned: RemoteUrls; heard: string[] }> {
    const dir = clone(name);
    const pinned = await remoteUrls(dir, "origin");
    if (!pinned) throw new Error("no origin");
    return { dir, pinned, heard: [] };
  }
  const config = (dir: string) => readFileSync(path.join(dir, ".git", "config"), "utf8");
  const decoyMain = () => sh(decoy, "log", "--format=%s", "main");

  it("an insteadOf rule for the project's address is removed: main comes from the project, and the removal is reported", async () => {
    const { dir, pinned, heard } = await pinnedClone("ada");
    commitToMain(clone("bob"), "from-bob.txt", "bob was here\n");
    sh(dir, "config", `url.${decoy}.insteadOf`, origin);
    const branch = await prepareTaskBranch({ ...settings(dir), taskId: "t1", pinned, onRepinned: (was) => heard.push(was) });
    expect(existsSync(path.join(dir, "from-bob.txt"))).toBe(true);
    expect(existsSync(path.join(dir, "decoy.txt"))).toBe(false);
    expect(config(dir)).not.toContain("insteadOf");
    expect(heard).toEqual([expect.stringContaining(`removed from its .git/config: url.${decoy}.insteadof=${origin}`)]);
    writeFileSync(path.join(dir, "feature.txt"), "mine\n");
    const outcome = await finishTaskBranch({ ...settings(dir), branch, message: "m", verifyRetries: 0, rerun: noRerun, pinned });
    expect(outcome).toMatchObject({ kind: "merged" });
    expect(originFile("feature.txt")).toBe("mine");
    expect(decoyMain()).not.toContain("m\n");
  });

  it("a pushInsteadOf rule the agent adds while it works does not take the merge elsewhere", async () => {
    const { dir, pinned, heard } = await pinnedClone("ada");
    const branch = await prepareTaskBranch({ ...settings(dir), taskId: "t1", pinned, onRepinned: (was) => heard.push(was) });
    expect(heard).toEqual([]);
    // The agent's run:
    writeFileSync(path.join(dir, "feature.txt"), "mine\n");
    sh(dir, "config", `url.${decoy}.pushInsteadOf`, origin);
    const outcome = await finishTaskBranch({
      ...settings(dir),
      branch,
      message: "task-t1: mine",
      verifyRetries: 0,
      rerun: noRerun,
      pinned,
      onRepinned: (was) => heard.push(was),
    });
    expect(outcome).toMatchObject({ kind: "merged" });
    expect(originFile("feature.txt")).toBe("mine");
    expect(decoyMain()).toBe("decoy commit\ninitial");
    expect(heard).toEqual([expect.stringContaining(`url.${decoy}.pushinsteadof=${origin}`)]);
  });

  it("an include of a file the agent wrote is removed, with what that file redirected; the file itself is left", async () => {
    const { dir, pinned, heard } = await pinnedClone("ada");
    const branch = await prepareTaskBranch({ ...settings(dir), taskId: "t1", pinned });
    const planted = path.join(root, "agent-notes.gitconfig");
    writeFileSync(planted, `[url "${decoy}"]\n\tinsteadOf = ${origin}\n[remote "origin"]\n\tpushurl = ${decoy}\n`);
    sh(dir, "config", "include.path", planted);
    sh(dir, "config", `includeIf.gitdir:${dir}/.path`, planted);
    writeFileSync(path.join(dir, "feature.txt"), "mine\n");
    const outcome = await finishTaskBranch({
      ...settings(dir),
      branch,
      message: "m",
      verifyRetries: 0,
      rerun: noRerun,
      pinned,
      onRepinned: (was) => heard.push(was),
    });
    expect(outcome).toMatchObject({ kind: "merged" });
    expect(originFile("feature.txt")).toBe("mine");
    expect(decoyMain()).toBe("decoy commit\ninitial");
    expect(heard[0]).toContain(`include.path=${planted}`);
    expect(heard[0]).toContain(`includeif.gitdir:${dir}/.path=${planted}`);
    expect(config(dir)).not.toContain(planted);
    expect(existsSync(planted)).toBe(true);
  });

  it("refuses to push, with a reason naming the file, when a rule the worker does not remove redirects the remote", async () => {
    const { dir, pinned } = await pinnedClone("ada");
    const branch = await prepareTaskBranch({ ...settings(dir), taskId: "t1", pinned });
    // The agent's user's own git config (its HOME is the agent's): not the checkout's, so the worker leaves it.
    const global = path.join(root, "agent-home.gitconfig");
    writeFileSync(global, `[url "${decoy}"]\n\tpushInsteadOf = ${origin}\n`);
    const before = process.env.GIT_CONFIG_GLOBAL;
    process.env.GIT_CONFIG_GLOBAL = global;
    try {
      writeFileSync(path.join(dir, "feature.txt"), "mine\n");
      const outcome = await finishTaskBranch({ ...settings(dir), branch, message: "m", verifyRetries: 0, rerun: noRerun, pinned });
      expect(outcome).toMatchObject({ kind: "failed", refused: true });
      expect(outcome.kind === "failed" && outcome.reason).toContain(`no longer resolves to ${origin}`);
      expect(outcome.kind === "failed" && outcome.reason).toContain(`file:${global}: url.${decoy}.pushinsteadof ${origin}`);
    } finally {
      if (before === undefined) delete process.env.GIT_CONFIG_GLOBAL;
      else process.env.GIT_CONFIG_GLOBAL = before;
    }
    expect(decoyMain()).toBe("decoy commit\ninitial");
    expect(sh(origin, "ls-tree", "--name-only", "main")).toBe("app.txt");
  });

  it("the worker's own git commands run none of the agent's hooks, fsmonitor, upload-pack or ssh command", async () => {
    const { dir, pinned, heard } = await pinnedClone("ada");
    const ran = path.join(root, "ran.log");
    const program = (name: string) => {
      const file = path.join(root, `${name}.sh`);
      writeFileSync(file, `#!/bin/sh\necho ${name} >> '${ran}'\nexec git-upload-pack "$@"\n`, { mode: 0o755 });
      return file;
    };
    for (const hook of ["pre-commit", "post-checkout", "pre-push", "reference-transaction", "post-merge"])
      writeFileSync(path.join(dir, ".git", "hooks", hook), `#!/bin/sh\necho ${hook} >> '${ran}'\nexit 1\n`, { mode: 0o755 });
    sh(dir, "config", "core.fsmonitor", program("fsmonitor"));
    sh(dir, "config", "remote.origin.uploadpack", program("uploadpack"));
    sh(dir, "config", "core.sshCommand", program("ssh"));
    sh(dir, "config", "credential.helper", `!${program("credential")}`);
    const branch = await prepareTaskBranch({ ...settings(dir), taskId: "t1", pinned, onRepinned: (was) => heard.push(was) });
    writeFileSync(path.join(dir, "feature.txt"), "mine\n");
    const outcome = await finishTaskBranch({ ...settings(dir), branch, message: "m", verifyRetries: 0, rerun: noRerun, pinned });
    expect(outcome).toMatchObject({ kind: "merged" });
    expect(originFile("feature.txt")).toBe("mine");
    expect(existsSync(ran) ? readFileSync(ran, "utf8") : "").toBe("");
    expect(heard[0]).toContain("remote.origin.uploadpack=");
    expect(heard[0]).toContain("core.sshcommand=");
    expect(heard[0]).toContain("credential.helper=");
    // The agent's own git in its checkout still has what it set up for itself.
    expect(sh(dir, "config", "core.fsmonitor")).toContain("fsmonitor.sh");
  });
});

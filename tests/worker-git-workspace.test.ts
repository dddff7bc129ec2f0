// The worker in a git workspace (worker/README.md, "The loop", step 6): the real
// worker process against the real app (global setup) on a local bare repository.
// The git workflow's own steps (rebase, conflicts, verify retries) are unit tests in
// worker/git-workflow.test.ts.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { FIXTURES, spawnWorker } from "../worker/test-support/run-worker";
import { server } from "./support/client";
import { agentWithToken, call, createTask, getTask, saveIdentity, seedBareRepository, type Target } from "./worker-helpers";

let target: Target;
let root: string;
let origin: string;
const sh = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
const originFile = (file: string) => sh(origin, "show", `main:${file}`);
const regExpText = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Another developer's commit straight onto main. */
function commitToMain(name: string, file: string, content: string) {
  const dir = path.join(root, name);
  sh(root, "clone", "--quiet", origin, dir);
  writeFileSync(path.join(dir, file), content);
  sh(dir, "add", file);
  sh(dir, "-c", `user.name=${name}`, "-c", `user.email=${name}@test.local`, "commit", "--quiet", "-m", `edit ${file}`);
  sh(dir, "push", "--quiet", "origin", "HEAD:main");
}

/** A worker on a clone of `origin` whose agent writes one file per task (tests/fixtures/agents/git-coder.sh). */
function coderEnv(token: string) {
  return {
    SWARMDECK_URL: target.baseUrl,
    SWARMDECK_TOKEN: token,
    WORKSPACE_DIR: path.join(root, "ws-ada"),
    REPO_URL: origin,
    AGENT_COMMAND: path.join(FIXTURES, "agents", "git-coder.sh"),
    POLL_WAIT_MS: "2000",
  };
}

beforeAll(() => {
  target = server();
});
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), "swarmdeck-git-"));
  origin = path.join(root, "origin.git");
  seedBareRepository(origin);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("worker in a git workspace", { timeout: 120_000 }, () => {
  it("merges the agent's change into main and completes with a note; a failing merge gives the task back", async () => {
    const agent = await agentWithToken(target);
    const env = coderEnv(agent.token);
    const first = await createTask(target, { title: "add a line", agentId: agent.id });
    const run = spawnWorker(env);
    expect(await run.exited, run.log()).toBe(0);
    const done = (await getTask(target, first)).task;
    expect(done.status, run.log()).toBe("completed");
    expect(done.output).toMatch(new RegExp(`merged task-${regExpText(first)} into main at [0-9a-f]{12}`));
    expect(originFile(`change-${first}.txt`)).toBe(`line from ${first}`);
    expect(sh(origin, "log", "-1", "--format=%s", "main")).toBe(`task-${first}: add a line`);
    expect(sh(origin, "ls-tree", "--name-only", "main")).not.toContain("SOUL.md");

    commitToMain("bob", "verify.sh", "#!/bin/bash\necho 'types: 1 error'; exit 1\n");
    const mainBefore = sh(origin, "rev-parse", "main");
    const second = await createTask(target, { title: "break it", agentId: agent.id });
    const again = spawnWorker({ ...env, VERIFY_RETRIES: "1" });
    expect(await again.exited, again.log()).toBe(0);
    // Given back (worker/README.md: "A git failure gives the task back (release) with the reason"): to its agent, with the reason on its timeline.
    const { task, events } = await getTask(target, second);
    expect(task.status, again.log()).toBe("pending");
    expect(task.agentId).toBe(agent.id);
    const released = events.filter((event: { type: string }) => event.type === "released");
    expect(released, JSON.stringify(events)).toHaveLength(1);
    expect(released[0].data.reason).toMatch(/git workflow: verification failed after 1 fix attempt\(s\)[\s\S]*types: 1 error/);
    expect(sh(origin, "rev-parse", "main")).toBe(mainBefore);
  });

  it("says when the setup script leaves files the project does not ignore (also in a folder untracked before), which the clean before each task removes", async () => {
    const agent = await agentWithToken(target);
    commitToMain("bob", ".gitignore", "ignored-cache/\n");
    await saveIdentity(
      target,
      agent.id,
      "setup-script",
      "mkdir -p ignored-cache deps\necho a > ignored-cache/a\necho b > deps/b\necho c > stray.txt",
    );
    // A kept clone with an untracked folder already in it: what the script adds there is named too.
    const project = path.join(root, "ws-ada", "project");
    mkdirSync(path.dirname(project), { recursive: true });
    sh(root, "clone", "--quiet", origin, project);
    mkdirSync(path.join(project, "deps"));
    writeFileSync(path.join(project, "deps", "old"), "left from before\n");
    const taskId = await createTask(target, { title: "add a line", agentId: agent.id });
    const run = spawnWorker(coderEnv(agent.token));
    expect(await run.exited, run.log()).toBe(0);
    const said =
      "setup script start-up.sh: it left files in the project that its .gitignore does not ignore (deps/, stray.txt); each task starts from a clean checkout (git clean -fd), which removes them before the agent runs";
    expect(run.log()).toContain(said);
    // Where operators read the script's output: the agent's page.
    const shown = await call(target, "GET", `/api/v1/agents/${agent.id}`);
    expect(shown.body.agent.setup).toMatchObject({ status: "ok" });
    expect(shown.body.agent.setup.output).toContain(
      "[swarmdeck worker] it left files in the project that its .gitignore does not ignore (deps/, stray.txt)",
    );
    // As it said: the task ran, the ignored folder stayed, the others went and none reached main.
    expect((await getTask(target, taskId)).task.status, run.log()).toBe("completed");
    expect(readFileSync(path.join(project, "ignored-cache", "a"), "utf8")).toBe("a\n");
    expect(existsSync(path.join(project, "stray.txt"))).toBe(false);
    expect(sh(origin, "ls-tree", "--name-only", "main").split("\n")).not.toContain("stray.txt");
  });

  it("works through the remote GIT_REMOTE names: clones under that name and merges into the project through it", async () => {
    const agent = await agentWithToken(target);
    const taskId = await createTask(target, { title: "through upstream", agentId: agent.id });
    const run = spawnWorker({ ...coderEnv(agent.token), GIT_REMOTE: "upstream" });
    expect(await run.exited, run.log()).toBe(0);
    expect((await getTask(target, taskId)).task.status, run.log()).toBe("completed");
    expect(originFile(`change-${taskId}.txt`)).toBe(`line from ${taskId}`);
    expect(sh(path.join(root, "ws-ada", "project"), "remote")).toBe("upstream");
  });

  it("fetches the project once to claim and once to merge, and leaves no merged branch on the remote", async () => {
    const agent = await agentWithToken(target);
    // Every git command the worker runs, through a wrapper of the real git ahead on its PATH.
    const bin = path.join(root, "bin");
    const calls = path.join(root, "git-calls.log");
    mkdirSync(bin);
    const realGit = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
    writeFileSync(path.join(bin, "git"), `#!/bin/sh\necho "$*" >> '${calls}'\nexec '${realGit}' "$@"\n`, { mode: 0o755 });
    const first = await createTask(target, { title: "add a line", agentId: agent.id });
    const run = spawnWorker({ ...coderEnv(agent.token), PATH: `${bin}:${process.env.PATH}` });
    expect(await run.exited, run.log()).toBe(0);
    expect((await getTask(target, first)).task.status, run.log()).toBe("completed");
    const lines = readFileSync(calls, "utf8").split("\n").filter(Boolean);
    // Every one of them without the checkout's hooks (the agent can write those).
    for (const line of lines) expect(line).toMatch(/^-c core\.hooksPath=\/dev\/null /);
    const fetches = lines.filter((line) => /^(-c \S+ )*fetch /.test(line));
    // The claim's check fetched a moment before the task branch was made: no second fetch for it.
    expect(fetches, run.log()).toHaveLength(2);
    expect(originFile(`change-${first}.txt`)).toBe(`line from ${first}`);
    expect(sh(origin, "branch", "--list", "task-*")).toBe("");
  });

  it("starts a task that came out of a long poll's wait from main as pushed during the wait", async () => {
    // An operator pushes a fix, then hands out the task that needs it, while the
    // worker waits in its long poll: the agent must see the fix, not main as it was.
    const agent = await agentWithToken(target);
    const lister = path.join(root, "lister.sh");
    writeFileSync(lister, `#!/bin/bash\ncat > /dev/null\nls > "seen-\${SWARMDECK_TASK_ID}.txt"\necho listed\n`, { mode: 0o755 });
    const run = spawnWorker({ ...coderEnv(agent.token), AGENT_COMMAND: lister, POLL_WAIT_MS: "20000" });
    const deadline = Date.now() + 30_000;
    while (!run.log().includes("registered as agent") && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(run.log()).toContain("registered as agent");
    // Well past the claim's own fetch: the worker is in its long poll now.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    commitToMain("bob", "fix-from-bob.txt", "the fix\n");
    const task = await createTask(target, { title: "use bob's fix", agentId: agent.id });
    expect(await run.exited, run.log()).toBe(0);
    expect((await getTask(target, task)).task.status, run.log()).toBe("completed");
    expect(originFile(`seen-${task}.txt`).split("\n"), run.log()).toContain("fix-from-bob.txt");
  });
  it("merges into the project's repository even when the agent points the checkout's origin elsewhere", async () => {
    // worker/README.md: one repository's tasks never land in another; "merged into main" must be the project's main.
    const decoy = path.join(root, "decoy.git");
    sh(root, "clone", "--quiet", "--bare", origin, decoy);
    const agent = await agentWithToken(target);
    const env = coderEnv(agent.token);
    const pushElsewhere = await createTask(target, { title: "push elsewhere", agentId: agent.id });
    const fetchElsewhere = await createTask(target, { title: "fetch elsewhere", agentId: agent.id });
    const run = spawnWorker(
      {
        ...env,
        AGENT_COMMAND: [
          "cat >/dev/null",
          `if [ "$SWARMDECK_TASK_ID" = "${pushElsewhere}" ]; then git config remote.origin.pushurl '${decoy}'; else git remote set-url origin '${decoy}'; fi`,
          'echo "line from $SWARMDECK_TASK_ID" > "change-$SWARMDECK_TASK_ID.txt"',
        ].join("\n"),
      },
      [],
    );
    try {
      await run.waitFor(new RegExp(`task=${fetchElsewhere} .*task completed`), 60_000);
    } finally {
      run.child.kill("SIGTERM");
      await run.exited;
    }
    for (const taskId of [pushElsewhere, fetchElsewhere]) {
      const { task } = await getTask(target, taskId);
      expect(task.status, run.log()).toBe("completed");
      expect(task.output).toMatch(new RegExp(`merged task-${regExpText(taskId)} into main`));
      expect(originFile(`change-${taskId}.txt`)).toBe(`line from ${taskId}`);
      expect(run.log()).toMatch(new RegExp(`task=${regExpText(taskId)} git: origin had been changed in the checkout`));
    }
    expect(sh(decoy, "log", "--format=%s", "main")).toBe("initial");
  });

  it("removes the insteadOf rules and includes an agent writes into .git/config, says so on the task, and merges into the project", async () => {
    const decoy = path.join(root, "decoy.git");
    sh(root, "clone", "--quiet", "--bare", origin, decoy);
    const agent = await agentWithToken(target);
    const rules = await createTask(target, { title: "rewrite the address", agentId: agent.id });
    const include = await createTask(target, { title: "include a file", agentId: agent.id });
    const planted = path.join(root, "planted.gitconfig");
    const run = spawnWorker(
      {
        ...coderEnv(agent.token),
        AGENT_COMMAND: [
          "cat >/dev/null",
          `if [ "$SWARMDECK_TASK_ID" = "${rules}" ]; then git config url.'${decoy}'.insteadOf '${origin}'; git config url.'${decoy}'.pushInsteadOf '${origin}'; fi`,
          `if [ "$SWARMDECK_TASK_ID" = "${include}" ]; then printf '[remote "origin"]\\n\\tpushurl = ${decoy}\\n' > '${planted}'; git config include.path '${planted}'; fi`,
          'echo "line from $SWARMDECK_TASK_ID" > "change-$SWARMDECK_TASK_ID.txt"',
        ].join("\n"),
      },
      [],
    );
    try {
      await run.waitFor(new RegExp(`task=${include} .*task completed`), 60_000);
    } finally {
      run.child.kill("SIGTERM");
      await run.exited;
    }
    for (const [taskId, removed] of [
      [rules, `url.${decoy}.insteadof=${origin}`],
      [include, `include.path=${planted}`],
    ] as const) {
      const { task, events } = await getTask(target, taskId);
      expect(task.status, run.log()).toBe("completed");
      expect(originFile(`change-${taskId}.txt`)).toBe(`line from ${taskId}`);
      // On the task's timeline, for the operator: what the worker removed.
      const notes = events
        .filter((event: { type: string }) => event.type === "progress")
        .map((event: { message?: string }) => event.message ?? "");
      expect(notes.join("\n"), JSON.stringify(events)).toContain(removed);
    }
    expect(readFileSync(path.join(root, "ws-ada", "project", ".git", "config"), "utf8")).not.toMatch(/insteadOf|include/i);
    expect(sh(decoy, "log", "--format=%s", "main")).toBe("initial");
  });

  it("fails the task, pushing nothing, when the agent redirects the remote where the worker cannot undo it", async () => {
    const decoy = path.join(root, "decoy.git");
    sh(root, "clone", "--quiet", "--bare", origin, decoy);
    const agent = await agentWithToken(target);
    // The agent's user's own git config (its HOME's), which the worker does not change.
    const global = path.join(root, "agent.gitconfig");
    writeFileSync(global, "");
    const taskId = await createTask(target, { title: "push elsewhere for good", agentId: agent.id });
    const run = spawnWorker({
      ...coderEnv(agent.token),
      GIT_CONFIG_GLOBAL: global,
      AGENT_COMMAND: [
        "cat >/dev/null",
        `git config --global url.'${decoy}'.pushInsteadOf '${origin}'`,
        'echo "line from $SWARMDECK_TASK_ID" > "change-$SWARMDECK_TASK_ID.txt"',
      ].join("\n"),
    });
    expect(await run.exited, run.log()).toBe(0);
    const { task } = await getTask(target, taskId);
    expect(task.status, run.log()).toBe("failed");
    expect(task.failureReason).toContain(`no longer resolves to ${origin}`);
    expect(task.failureReason).toContain(`file:${global}: url.${decoy}.pushinsteadof ${origin}`);
    expect(sh(origin, "ls-tree", "--name-only", "main")).not.toContain(`change-${taskId}.txt`);
    expect(sh(decoy, "branch", "--list")).not.toContain("task-");
  });
});

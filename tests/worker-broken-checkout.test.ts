// What an agent can leave in its checkout's git state that used to fail every later
// task, hang the worker or start tasks from a stale main (worker/README.md, "One task,
// step by step", step 2): the real worker on a local bare repository, one agent script
// per task (its title says what it does).
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { spawnWorker } from "../worker/test-support/run-worker";
import { server } from "./support/client";
import { agentWithToken, createTask, getTask, seedBareRepository, type Target, waitForTask } from "./worker-helpers";

let target: Target;
let root: string;
let origin: string;
const sh = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=bob", "-c", "user.email=bob@test.local", ...args], {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  }).trim();

/** An agent whose task title picks what it does; every task also writes a file named after it. */
function agentScript(): string {
  const file = path.join(root, "agent.sh");
  writeFileSync(
    file,
    `#!/bin/bash
prompt="$(cat)"
git config user.name agent; git config user.email agent@test.local
case "$prompt" in
  *"leave a rebase half done"*)
    git checkout -q -b side HEAD~0
    echo "side" > app.txt; git commit -qam side
    git checkout -q -
    echo "mine" > app.txt; git commit -qam mine
    git rebase -q side || true
    touch .git/index.lock
    git branch origin/main HEAD 2>/dev/null || true
    ;;
  *"install a filter"*)
    git config filter.slow.clean 'sleep 3600; cat'
    echo '* filter=slow' >> .git/info/attributes
    mkfifo "$SWARMDECK_HOME/pipe"; ln -s "$SWARMDECK_HOME/pipe" notes.txt
    ;;
  *"narrow the fetch"*)
    git remote set-branches origin feature
    ;;
  *"remove the checkout's git folder"*)
    rm -rf .git
    ;;
  *"rewrite main"*)
    git checkout -q --orphan rewritten
    git commit -qm "history of my own"
    git push -q -f origin HEAD:main
    ;;
esac
echo "from $SWARMDECK_TASK_ID" > "task-$SWARMDECK_TASK_ID.txt"
echo done
`,
    { mode: 0o755 },
  );
  return file;
}

function workerEnv(token: string) {
  return {
    SWARMDECK_URL: target.baseUrl,
    SWARMDECK_TOKEN: token,
    WORKSPACE_DIR: path.join(root, "ws"),
    REPO_URL: origin,
    AGENT_COMMAND: agentScript(),
    REFLECTION: "off",
  };
}

const onMain = (file: string) =>
  execFileSync("git", ["-c", "safe.directory=*", "show", `main:${file}`], { cwd: origin, encoding: "utf8" }).trim();

beforeAll(() => {
  target = server();
});
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), "swarmdeck-checkout-"));
  origin = path.join(root, "origin.git");
  seedBareRepository(origin);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("a checkout the agent left broken", { timeout: 120_000 }, () => {
  it("is repaired before the next task (a rebase half done, a stale lock, a branch named origin/main), which completes from main", async () => {
    const agent = await agentWithToken(target);
    const breaker = await createTask(target, { title: "leave a rebase half done", agentId: agent.id });
    const next = await createTask(target, { title: "an ordinary task", agentId: agent.id });
    const first = spawnWorker(workerEnv(agent.token));
    expect(await first.exited, first.log()).toBe(0);
    // Its conflict markers fail its verification: given back, and it waits out its backoff.
    expect((await getTask(target, breaker)).task.status, first.log()).toBe("pending");
    const run = spawnWorker(workerEnv(agent.token));
    expect(await run.exited, run.log()).toBe(0);
    const { task, events } = await getTask(target, next);
    expect(task.status, run.log()).toBe("completed");
    expect(onMain(`task-${next}.txt`)).toBe(`from ${next}`);
    // Said on the worker's log and on the task's timeline.
    expect(run.log()).toMatch(
      /the checkout was repaired before the task: a stale \.git\/index\.lock was removed; a rebase left unfinished was aborted/,
    );
    expect(JSON.stringify(events)).toContain("the checkout was repaired before the task");
  });

  it("does not hang on a filter the agent installed or a link to a FIFO: the filter is removed and the task merges", async () => {
    const agent = await agentWithToken(target);
    const taskId = await createTask(target, { title: "install a filter", agentId: agent.id, timeLimitMinutes: 1 });
    const run = spawnWorker(workerEnv(agent.token));
    expect(await run.exited, run.log()).toBe(0);
    expect((await getTask(target, taskId)).task.status, run.log()).toBe("completed");
    expect(onMain(`task-${taskId}.txt`)).toBe(`from ${taskId}`);
    expect(run.log()).toContain("filter.slow.clean=sleep 3600; cat");
  });

  it("starts the next task from main as pushed, though the agent narrowed what the checkout fetches", async () => {
    const agent = await agentWithToken(target);
    const narrow = await createTask(target, { title: "narrow the fetch", agentId: agent.id });
    const run = spawnWorker(workerEnv(agent.token));
    expect(await run.exited, run.log()).toBe(0);
    expect((await getTask(target, narrow)).task.status, run.log()).toBe("completed");
    // Another developer pushes to main; the next task must start from (and merge onto) it.
    const bob = path.join(root, "bob");
    sh(root, "clone", "--quiet", origin, bob);
    writeFileSync(path.join(bob, "bob.txt"), "bob's fix\n");
    sh(bob, "add", "bob.txt");
    sh(bob, "commit", "--quiet", "-m", "bob's fix");
    sh(bob, "push", "--quiet", "origin", "HEAD:main");
    const next = await createTask(target, { title: "an ordinary task", agentId: agent.id });
    const again = spawnWorker(workerEnv(agent.token));
    expect(await again.exited, again.log()).toBe(0);
    expect((await getTask(target, next)).task.status, again.log()).toBe("completed");
    expect(onMain(`task-${next}.txt`)).toBe(`from ${next}`);
    expect(onMain("bob.txt")).toBe("bob's fix");
  });
});

describe("an agent that removes the checkout's .git", { timeout: 120_000 }, () => {
  it("fails its task saying so, and the worker clones again (keeping what was left), reruns the setup script and completes the next task", async () => {
    const agent = await agentWithToken(target);
    const breaker = await createTask(target, { title: "remove the checkout's git folder", agentId: agent.id });
    const run = spawnWorker(workerEnv(agent.token), []);
    try {
      await waitForTask(target, breaker, (task) => task.status === "failed");
      const { task } = await getTask(target, breaker);
      expect(task.failureReason, run.log()).toMatch(
        /project\/\.git is gone: the folder is no git checkout any more \(removed during the task\), so the task's work cannot be committed/,
      );
      const next = await createTask(target, { title: "an ordinary task", agentId: agent.id });
      await waitForTask(target, next, (done) => done.status === "completed");
      expect(onMain(`task-${next}.txt`)).toBe(`from ${next}`);
      expect(() => onMain(`task-${breaker}.txt`)).toThrow();
      const ws = path.join(root, "ws");
      // What the breaking task left is kept for the operator, beside the new clone.
      expect(readFileSync(path.join(ws, "project.broken", `task-${breaker}.txt`), "utf8").trim()).toBe(`from ${breaker}`);
      expect(existsSync(path.join(ws, "project", ".git"))).toBe(true);
      expect(run.log()).toMatch(
        /project is no git checkout any more \(its \.git is gone: removed during a task or an idle run\); what was left in it is kept in \S+project\.broken/,
      );
      expect(run.log()).toMatch(/setup script start-up\.sh: running it again \(\S+project was cloned again\)/);
    } finally {
      run.child.kill("SIGTERM");
      expect(await run.exited, run.log()).toBe(0);
    }
    // A worker started later on the same workspace works from the clone too.
    const later = await createTask(target, { title: "an ordinary task", agentId: agent.id });
    const again = spawnWorker(workerEnv(agent.token));
    expect(await again.exited, again.log()).toBe(0);
    expect((await getTask(target, later)).task.status, again.log()).toBe("completed");
  });

  it("is cloned again at the next start when the worker stopped right after the task that removed it", async () => {
    const agent = await agentWithToken(target);
    const breaker = await createTask(target, { title: "remove the checkout's git folder", agentId: agent.id });
    const first = spawnWorker(workerEnv(agent.token));
    expect(await first.exited, first.log()).toBe(0);
    expect((await getTask(target, breaker)).task.status, first.log()).toBe("failed");
    const next = await createTask(target, { title: "an ordinary task", agentId: agent.id });
    const again = spawnWorker(workerEnv(agent.token));
    expect(await again.exited, again.log()).toBe(0);
    expect((await getTask(target, next)).task.status, again.log()).toBe("completed");
    expect(onMain(`task-${next}.txt`)).toBe(`from ${next}`);
    expect(again.log()).toContain("what was left in it is kept in");
  });

  it("still refuses a project folder that was never the worker's clone, or was put in its place since", async () => {
    const agent = await agentWithToken(target);
    const ws = path.join(root, "ws");
    const ownFolder = () => {
      mkdirSync(path.join(ws, "project"), { recursive: true });
      writeFileSync(path.join(ws, "project", "notes.txt"), "someone's own files\n");
    };
    const refused = async () => {
      const run = spawnWorker(workerEnv(agent.token));
      expect(await run.exited, run.log()).toBe(2);
      expect(run.log()).toContain("is not empty and not a git checkout; refusing to clone");
      expect(readFileSync(path.join(ws, "project", "notes.txt"), "utf8")).toBe("someone's own files\n");
      expect(existsSync(path.join(ws, "project.broken"))).toBe(false);
    };
    ownFolder();
    await refused();
    // The worker's clone, moved away by the operator, and a folder of their own in its place.
    rmSync(path.join(ws, "project"), { recursive: true });
    const clone = spawnWorker(workerEnv(agent.token));
    expect(await clone.exited, clone.log()).toBe(0);
    renameSync(path.join(ws, "project"), path.join(root, "kept-clone"));
    ownFolder();
    await refused();
    // A .git git cannot use may still hold work: refused too, with git's words, and left where it is.
    rmSync(path.join(ws, "project"), { recursive: true });
    renameSync(path.join(root, "kept-clone"), path.join(ws, "project"));
    writeFileSync(path.join(ws, "project", ".git", "HEAD"), "not a ref\n");
    const unreadable = spawnWorker(workerEnv(agent.token));
    expect(await unreadable.exited, unreadable.log()).toBe(2);
    expect(unreadable.log()).toMatch(/project\/\.git is there, but git cannot use it as a checkout \(.+\); refusing to clone/);
    expect(existsSync(path.join(ws, "project", "app.txt"))).toBe(true);
    expect(existsSync(path.join(ws, "project.broken"))).toBe(false);
  });

  it("without REPO_URL (a checkout put in project/ by hand) stops the worker (exit 2), since there is nothing to clone again from", async () => {
    const agent = await agentWithToken(target);
    const ws = path.join(root, "ws");
    mkdirSync(ws);
    sh(ws, "clone", "--quiet", origin, "project");
    const breaker = await createTask(target, { title: "remove the checkout's git folder", agentId: agent.id });
    const next = await createTask(target, { title: "an ordinary task", agentId: agent.id });
    const { REPO_URL: _none, ...withoutRepo } = workerEnv(agent.token);
    const run = spawnWorker(withoutRepo, []);
    expect(await run.exited, run.log()).toBe(2);
    expect((await getTask(target, breaker)).task.status).toBe("failed");
    expect(run.log()).toMatch(
      /project\/\.git is gone \(removed during a task or an idle run\), and without REPO_URL there is nothing to clone it again from: put the checkout back, or set REPO_URL \(or remove \S+project\.cloned to have the agent work in the folder as it is, without git\); no task was claimed \(exit 2\)/,
    );
    expect((await getTask(target, next)).task).toMatchObject({ status: "pending", attempts: 0 });
    // Started again, it does not take the leftovers for a plain work folder.
    const again = spawnWorker(withoutRepo);
    expect(await again.exited, again.log()).toBe(2);
    expect(again.log()).toContain(
      "project/.git is gone (removed during a task or an idle run), and without REPO_URL there is nothing to clone it again from",
    );
    expect((await getTask(target, next)).task).toMatchObject({ status: "pending", attempts: 0 });
  });

  it("with AGENT_USER: the clone is the agent's again, and the copy kept the time before is removed as the agent's user", async () => {
    const agentUid = 47_125;
    chmodSync(root, 0o755);
    // The agent's git pushes to the project, so the repository is the agent's user's to write.
    execFileSync("chown", ["-R", String(agentUid), origin]);
    const agent = await agentWithToken(target);
    const ws = path.join(root, "ws");
    const broken = path.join(ws, "project.broken");
    const kept = () => readdirSync(broken).filter((name) => name.startsWith("task-"));
    const breaks = async () => {
      const taskId = await createTask(target, { title: "remove the checkout's git folder", agentId: agent.id });
      await waitForTask(target, taskId, (task) => task.status === "failed", 60_000);
      return taskId;
    };
    const run = spawnWorker({ ...workerEnv(agent.token), AGENT_USER: String(agentUid) }, []);
    try {
      await breaks();
      const second = await breaks();
      const next = await createTask(target, { title: "an ordinary task", agentId: agent.id });
      await waitForTask(target, next, (task) => task.status === "completed", 60_000);
      expect(onMain(`task-${next}.txt`)).toBe(`from ${next}`);
      expect(kept()).toEqual([`task-${second}.txt`]);
      expect(statSync(path.join(ws, "project")).uid).toBe(agentUid);
      expect(statSync(path.join(ws, "project", ".git")).uid).toBe(agentUid);
      // Something in the kept copy the agent's user may not delete (root's): the worker's removal, as that user, cannot either.
      mkdirSync(path.join(broken, "roots"), { mode: 0o755 });
      writeFileSync(path.join(broken, "roots", "file"), "root's\n");
      const third = await breaks();
      await run.waitFor(
        /project\.broken\) cannot be removed to keep this one \(rm: cannot remove '\S+roots\/file': Permission denied\)/,
        30_000,
      );
      expect(readFileSync(path.join(broken, "roots", "file"), "utf8")).toBe("root's\n");
      // What the last task left stays where it was, not moved over what could not be removed.
      expect(readFileSync(path.join(ws, "project", `task-${third}.txt`), "utf8").trim()).toBe(`from ${third}`);
    } finally {
      run.child.kill("SIGTERM");
      expect(await run.exited, run.log()).toBe(0);
    }
  });
});

describe("an agent that force-pushes main", { timeout: 60_000 }, () => {
  it("is not silent: the rewrite is on the worker's log and the task's timeline", async () => {
    const agent = await agentWithToken(target);
    const taskId = await createTask(target, { title: "rewrite main", agentId: agent.id });
    const run = spawnWorker(workerEnv(agent.token));
    expect(await run.exited, run.log()).toBe(0);
    const rewrite =
      /main on origin was rewritten \(a force push\) while the task ran: it no longer contains [0-9a-f]{12}, which the task started from/;
    expect(run.log()).toMatch(rewrite);
    const { events } = await getTask(target, taskId);
    expect(JSON.stringify(events)).toMatch(rewrite);
  });
});

describe("a repository without the main branch", { timeout: 60_000 }, () => {
  it("stops the worker at start (exit 2) naming GIT_MAIN_BRANCH and the branches there are, and claims nothing", async () => {
    const agent = await agentWithToken(target);
    const master = path.join(root, "master.git");
    sh(root, "clone", "--quiet", "--bare", origin, master);
    sh(master, "branch", "-m", "main", "master");
    const taskId = await createTask(target, { title: "an ordinary task", agentId: agent.id });
    const run = spawnWorker({ ...workerEnv(agent.token), REPO_URL: master });
    expect(await run.exited, run.log()).toBe(2);
    expect(run.log()).toContain(`${master} has no branch main (GIT_MAIN_BRANCH; its branches: master)`);
    expect((await getTask(target, taskId)).task.status).toBe("pending");
  });
});

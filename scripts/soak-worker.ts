// Soak run of the worker (`npm run soak:worker [-- --tasks N]`, not part of npm test):
// the production app on a fresh SQLite file, a bare project repository that tracks
// its own CLAUDE.md, TOOLS.md and start-up.sh, and 4 real worker processes whose
// scripted agent (tests/fixtures/agents/soak-agent.sh) succeeds (some leaving processes
// behind), fails, hangs or gives back as each task says. One agent starts with a broken setup script of its
// own (fixed a quarter of the way in), and the global script is broken for a few
// seconds mid-run. At the end it checks that every task ended exactly once in a
// state that explains itself, that no task was claimed more often than the limit,
// that nothing but code reached the repository, and that no failure came from a
// setup script; then it prints the figures. Exit 1 when a check fails.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startTestServer } from "../tests/support/test-server";
import { FIXTURES, spawnWorker } from "../worker/test-support/run-worker";

const tasksFlag = process.argv.indexOf("--tasks");
const TASKS = tasksFlag === -1 ? 200 : Number(process.argv[tasksFlag + 1]);
const MAX_ATTEMPTS = 3;
const KINDS = ["succeed", "succeed", "succeed", "succeed", "succeed", "leave-behind", "fail", "hang", "give-back", "give-back"] as const;
const PROJECT_FILES: Record<string, string> = {
  "CLAUDE.md": "# Project rules\n",
  "TOOLS.md": "# Project tooling\n",
  "start-up.sh": "#!/bin/sh\necho project\n",
  "memory/README.md": "# the project's memory module\n",
};

// biome-ignore lint/suspicious/noExplicitAny: JSON answers of the app
type Json = Record<string, any>;

async function main() {
  const started = Date.now();
  const server = await startTestServer({
    env: { SWARMDECK_MAX_ATTEMPTS: String(MAX_ATTEMPTS), SWARMDECK_RETRY_BACKOFF_MS: "500", SWARMDECK_STALL_TIMEOUT_MS: "120000" },
  });
  const root = mkdtempSync(path.join(tmpdir(), "swarmdeck-soak-"));
  const call = async (method: string, url: string, body?: unknown, token = server.adminToken): Promise<Json> => {
    const response = await fetch(`${server.baseUrl}${url}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${text.slice(0, 300)}`);
    return text ? JSON.parse(text) : {};
  };
  const setScript = async (agentId: string, content: string) => {
    const current = await call("GET", `/api/v1/agents/${agentId}/identity/setup-script`);
    await call("PUT", `/api/v1/agents/${agentId}/identity/setup-script`, { content, baseVersionId: current.versionId, reason: "soak" });
  };
  const setGlobal = (value: string) => call("PUT", "/api/v1/config", { scope: "global", key: "SETUP_SCRIPT", value });
  const workers: ReturnType<typeof spawnWorker>[] = [];
  try {
    // The project.
    const origin = path.join(root, "origin.git");
    execFileSync("git", ["init", "--quiet", "--bare", "--initial-branch=main", origin]);
    const seed = path.join(root, "seed");
    execFileSync("git", ["clone", "--quiet", origin, seed], { stdio: "ignore" });
    for (const [file, content] of Object.entries(PROJECT_FILES)) {
      mkdirSync(path.dirname(path.join(seed, file)), { recursive: true });
      writeFileSync(path.join(seed, file), content);
    }
    const git = (cwd: string, ...args: string[]) =>
      execFileSync("git", ["-c", "user.name=s", "-c", "user.email=s@t", ...args], { cwd, encoding: "utf8" }).trim();
    git(seed, "add", ".");
    git(seed, "commit", "--quiet", "-m", "the project");
    git(seed, "push", "--quiet", "origin", "HEAD:main");
    const seedSha = git(seed, "rev-parse", "HEAD");

    // Four agents; the fourth starts with a setup script of its own that fails.
    const agents: Array<{ id: string; name: string; token: string }> = [];
    for (let i = 1; i <= 4; i++) {
      const { agent } = await call("POST", "/api/v1/agents", { name: `soak-${i}` });
      const { token } = await call("POST", `/api/v1/agents/${agent.id}/tokens`, { name: "soak" });
      agents.push({ id: agent.id, name: agent.name, token });
    }
    await setScript(agents[3]!.id, "echo 'E: Unable to locate package soak-typo' >&2\nexit 100");
    for (const [i, agent] of agents.entries()) {
      workers.push(
        spawnWorker(
          {
            SWARMDECK_URL: server.baseUrl,
            SWARMDECK_TOKEN: agent.token,
            WORKSPACE_DIR: path.join(root, `w${i + 1}`),
            REPO_URL: origin,
            AGENT_COMMAND: path.join(FIXTURES, "agents", "soak-agent.sh"),
            REFLECTION_COMMAND: path.join(FIXTURES, "agents", "reflect.sh"),
            NO_PROGRESS_MINUTES: "0.04",
            SETUP_RECHECK_MS: "300",
            POLL_WAIT_MS: "1000",
          },
          [],
        ),
      );
    }

    // The work: a mix of kinds, all in the pool.
    const kindOf = new Map<string, string>();
    for (let i = 0; i < TASKS; i++) {
      const kind = KINDS[i % KINDS.length]!;
      const { task } = await call("POST", "/api/v1/tasks", { title: `soak ${i} (${kind})`, description: `kind=${kind}` });
      kindOf.set(task.id, kind);
    }
    console.log(`soak: ${TASKS} tasks for 4 workers (agent ${agents[3]!.name} starts with a broken setup script)`);

    const finished = async () => {
      const counts = { completed: 0, failed: 0 };
      for (const status of ["completed", "failed"] as const) {
        let cursor: string | null = null;
        do {
          const page: Json = await call("GET", `/api/v1/tasks?status=${status}&limit=200${cursor ? `&cursor=${cursor}` : ""}`);
          counts[status] += page.tasks.filter((t: Json) => kindOf.has(t.id)).length;
          cursor = page.nextCursor;
        } while (cursor);
      }
      return counts;
    };
    let fixedAgent = false;
    let brokeGlobal = false;
    const deadline = Date.now() + 30 * 60_000;
    for (;;) {
      const done = await finished();
      const total = done.completed + done.failed;
      if (!brokeGlobal && total >= TASKS / 2) {
        brokeGlobal = true;
        console.log("soak: breaking the global setup script for 4 s");
        await setGlobal("#!/bin/bash\nexit 42 # a typo");
        await new Promise((resolve) => setTimeout(resolve, 4_000));
        await setGlobal("#!/bin/bash\ntrue");
      }
      if (!fixedAgent && total >= TASKS / 4) {
        fixedAgent = true;
        console.log(`soak: fixing ${agents[3]!.name}'s setup script`);
        await setScript(agents[3]!.id, "echo 'installed'");
      }
      if (total >= TASKS) break;
      if (Date.now() > deadline) throw new Error(`not done after 30 min: ${JSON.stringify(done)}`);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    for (const worker of workers) worker.child.kill("SIGTERM");
    await Promise.all(workers.map((worker) => worker.exited));

    // The checks.
    const problems: string[] = [];
    const figures = {
      completed: 0,
      failed: 0,
      claims: 0,
      giveBacks: 0,
      limitStops: 0,
      byKind: {} as Record<string, Record<string, number>>,
      perAgent: {} as Record<string, number>,
    };
    for (const [taskId, kind] of kindOf) {
      const { task, events } = await call("GET", `/api/v1/tasks/${taskId}`);
      const finals = events.filter((e: Json) => e.type === "status" && ["completed", "failed", "cancelled"].includes(e.toStatus));
      const claims = events.filter((e: Json) => e.type === "claimed");
      const released = events.filter((e: Json) => e.type === "released");
      figures.claims += claims.length;
      figures.giveBacks += released.length;
      figures.limitStops += released.filter((e: Json) => /no progress for|timed out after/.test(e.message)).length;
      figures.byKind[kind] ??= {};
      figures.byKind[kind]![task.status] = (figures.byKind[kind]![task.status] ?? 0) + 1;
      for (const claim of claims) figures.perAgent[claim.actorId] = (figures.perAgent[claim.actorId] ?? 0) + 1;
      if (finals.length !== 1) problems.push(`${taskId} (${kind}) ended ${finals.length} times`);
      if (claims.length > MAX_ATTEMPTS) problems.push(`${taskId} (${kind}) ran ${claims.length} times (limit ${MAX_ATTEMPTS})`);
      if (task.status === "completed") {
        figures.completed += 1;
        if (!task.output?.trim()) problems.push(`${taskId} completed without output`);
      } else if (task.status === "failed") {
        figures.failed += 1;
        if (!task.failureReason?.trim()) problems.push(`${taskId} failed without a reason`);
        if (/setup script/i.test(task.failureReason)) problems.push(`${taskId} failed because of a setup script`);
      } else problems.push(`${taskId} (${kind}) is ${task.status}`);
      const expected = kind === "succeed" || kind === "leave-behind" ? "completed" : "failed";
      if (task.status !== expected) problems.push(`${taskId} (${kind}) is ${task.status}, expected ${expected}`);
    }
    git(seed, "fetch", "--quiet", "origin");
    const changed = git(seed, "diff", "--name-only", `${seedSha}..origin/main`).split("\n").filter(Boolean);
    const strays = changed.filter((file) => !/^soak-[A-Za-z0-9]+\.txt$/.test(file));
    if (strays.length) problems.push(`files other than code reached main: ${strays.join(", ")}`);
    for (const [file, content] of Object.entries(PROJECT_FILES))
      if (`${git(seed, "show", `origin/main:${file}`)}\n` !== content) problems.push(`the project's ${file} changed on main`);
    // The processes the leave-behind tasks started, while the workers still run: none may be left.
    const leftBehind = execFileSync("ps", ["-eo", "args"], { encoding: "utf8" })
      .split("\n")
      .filter((line) => /^sleep 59[89]$/.test(line.trim())).length;
    if (leftBehind > 0) problems.push(`${leftBehind} process(es) the agents left behind still run`);
    const setupAudit = await call("GET", "/api/v1/audit?action=agent.setup_failed&limit=100");

    const seconds = Math.round((Date.now() - started) / 100) / 10;
    console.log(
      JSON.stringify(
        {
          tasks: TASKS,
          seconds,
          ...figures,
          perAgent: Object.fromEntries(agents.map((a) => [a.name, figures.perAgent[a.id] ?? 0])),
          commitsOnMain: Number(git(seed, "rev-list", "--count", `${seedSha}..origin/main`)),
          filesOnMain: changed.length,
          setupFailuresReported: setupAudit.events.length,
          leftBehind,
          problems: problems.length,
        },
        null,
        2,
      ),
    );
    if (problems.length) {
      console.error(`soak: ${problems.length} problem(s):\n${problems.slice(0, 50).join("\n")}`);
      process.exitCode = 1;
    } else console.log("soak: every task ended exactly once and explains itself; nothing but code reached main");
  } finally {
    for (const worker of workers) worker.child.kill("SIGKILL");
    await server.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

await main();

// The worker's loop: register with the worker token, long-poll for tasks and run
// each one (task-runner.ts), back off with jitter when the app is unreachable,
// propose an improvement when idle (IDLE_PROPOSAL_AFTER), stop when told.
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import path from "node:path";
import { agentStartProblem } from "./agent-check";
import { setAgentUser } from "./agent-user";
import { createApiClient, WorkerApiError } from "./api-client";
import { backoffDelay, sleep } from "./backoff";
import { CheckoutGate } from "./checkout-gate";
import type { WorkerConfig } from "./config";
import { CrashGuard } from "./crash-guard";
import { proposeImprovement } from "./idle-proposal";
import { recordWorkerRun, takeOverWorkspace } from "./leftover-agents";
import type { Logger } from "./log";
import { SetupGuard } from "./setup-guard";
import { startFromKnownStartupFiles } from "./startup-baseline";
import { runTask } from "./task-runner";
import {
  enclosingWorkTree,
  ensureWorkspace,
  layoutOf,
  reclaimHome,
  recloneIfGone,
  WorkspaceError,
  type WorkspaceLayout,
} from "./workspace-layout";

export const WORKER_VERSION = "0.1.0";

async function register(config: WorkerConfig, api: ReturnType<typeof createApiClient>, log: Logger, shutdown: AbortSignal) {
  for (let attempt = 0; !shutdown.aborted; attempt++) {
    try {
      return await api.register({ version: WORKER_VERSION, hostname: hostname().slice(0, 255), harness: config.harness });
    } catch (error) {
      // Not Swarmdeck at all (another server's page, a redirect): SWARMDECK_URL is wrong. Any 5xx (a proxy's while the app restarts) is retried.
      // A 2xx that is not a registration is another server too (a single-page app's catch-all).
      const notTheApp =
        error instanceof WorkerApiError &&
        ((!error.fromApp && error.status >= 300 && error.status < 500 && ![408, 429].includes(error.status)) ||
          error.code === "bad_answer");
      if (notTheApp) {
        const what =
          error.code === "redirect"
            ? `it answers ${error.status}, ${error.appMessage}`
            : error.code === "bad_answer"
              ? "it answers, but not with a worker's registration"
              : `it answers ${error.status} without Swarmdeck's error shape`;
        log.error(
          `SWARMDECK_URL (${config.baseUrl}) does not look like the Swarmdeck app: ${what} at POST /api/worker/register. Set SWARMDECK_URL to the app's address (scheme, host, port; the address operators open, without a path) and start the worker again; no task was claimed`,
        );
        return "wrong_setting" as const;
      }
      // An app without the register route still serves tasks: go on with what the environment says.
      if (error instanceof WorkerApiError && error.status === 404) {
        log.warn(`register: ${error.message}; going on without it`);
        const name = process.env.AGENT_NAME?.trim() || "swarmdeck-agent";
        return { agent: { id: "unknown", name, role: "worker" as const, securityProfile: "standard" as const }, pollIntervalMs: 1000 };
      }
      // A token the app does not take is a wrong setting, like the others loadConfig names (exit 2).
      if (error instanceof WorkerApiError && (error.status === 401 || error.status === 403)) {
        log.error(
          `SWARMDECK_TOKEN: the app refused it (${error.status}: ${error.appMessage}). Create a worker token on the agent's page in the app, set SWARMDECK_TOKEN to it and start the worker again; no task was claimed`,
        );
        return "wrong_setting" as const;
      }
      if (error instanceof WorkerApiError && !error.transient) throw error;
      // The app limits how often one agent registers (lib/api/worker-quotas.ts): a worker
      // restarted in a loop waits here for the time the 429 names, claiming nothing.
      if (error instanceof WorkerApiError && error.retryAfterMs !== null && config.once) {
        log.error(`register: the app refused for now (429: ${error.appMessage}); exiting without claiming a task (--once)`);
        return "refused_for_now" as const;
      }
      if (error instanceof WorkerApiError && error.retryAfterMs !== null) {
        // A little later than asked, by chance: an agent's workers refused together do not all come back at once.
        const delay = Math.max(
          backoffDelay(attempt),
          error.retryAfterMs + Math.round(Math.random() * Math.min(error.retryAfterMs / 10, 30_000)),
        );
        log.warn(
          `register: the app refused for now (429: ${error.appMessage}); trying again in ${Math.ceil(delay / 1000)} s, claiming nothing until then`,
        );
        await sleep(delay, shutdown);
        continue;
      }
      const delay = backoffDelay(attempt);
      log.warn(`register failed (${(error as Error).message}); retrying in ${delay} ms`);
      await sleep(delay, shutdown);
    }
  }
  return null;
}

function inUse(workspaceDir: string, pid: number): string {
  return `WORKSPACE_DIR (${workspaceDir}) is in use by another worker (pid ${pid}): two workers on one workspace would run their agents in the same checkout. Give each worker its own WORKSPACE_DIR, or stop the other one; no task was claimed`;
}

export async function runWorker(config: WorkerConfig, log: Logger, shutdown: AbortSignal): Promise<number> {
  // First of all, even before the app is reached: an agent a killed worker left running goes on writing into the workspace.
  const takeover = await takeOverWorkspace(config.workspaceDir);
  if ("inUseBy" in takeover) {
    log.error(inUse(config.workspaceDir, takeover.inUseBy));
    return 2;
  }
  if (takeover.killed > 0)
    log.warn(
      `killed ${takeover.killed} agent process(es) an earlier worker on this workspace left running (it was stopped without stopping its agent)`,
    );
  if (takeover.survivors > 0)
    log.warn(
      `${takeover.survivors} process(es) an earlier worker on this workspace left running could not be killed: look for SWARMDECK_WORKER_RUN in their environment`,
    );
  // Liveness for a container health check (docker-compose.yml): touched while the event loop runs,
  // from here on: while a 429 has registration wait (up to an hour), while the project is cloned, task or not.
  // Not into a folder ensureWorkspace has yet to check (one in a checkout is refused: the file would land in its tree).
  const aliveFile = path.join(layoutOf(config.workspaceDir).root, "worker.alive");
  let checked = existsSync(path.dirname(aliveFile)) && enclosingWorkTree(path.dirname(aliveFile)) === null;
  const touchAlive = () => {
    if (checked) void writeFile(aliveFile, `${new Date().toISOString()}\n`).catch(() => {});
  };
  touchAlive();
  const alive = setInterval(touchAlive, 15_000);
  try {
    return await serve(config, log, shutdown, () => {
      checked = true;
      touchAlive();
    });
  } finally {
    clearInterval(alive);
  }
}

/** The worker after the takeover: registers, prepares the workspace (workspaceReady once recordWorkerRun holds it), then claims and runs tasks until shut down. */
async function serve(config: WorkerConfig, log: Logger, shutdown: AbortSignal, workspaceReady: () => void): Promise<number> {
  const api = createApiClient({ baseUrl: config.baseUrl, token: config.token });
  const registered = await register(config, api, log, shutdown);
  if (!registered) return 0;
  if (registered === "wrong_setting") return 2;
  if (registered === "refused_for_now") return 1;
  const { agent } = registered;
  let layout: WorkspaceLayout;
  setAgentUser(config.agentUser, config.workspaceDir);
  if (config.agentUser) log.info(`the agent runs as ${config.agentUser.label}, apart from the worker`);
  else if (process.getuid?.() === 0)
    log.warn(
      "ALLOW_AGENT_AS_ROOT: the agent runs as root, like the worker: it could read the worker's token from /proc. Set AGENT_USER (worker/README.md)",
    );
  else
    log.warn(
      `the agent runs as the worker's own user (uid ${process.getuid?.()}): it could read the worker's token from /proc. Run the worker as root with AGENT_USER (worker/README.md)`,
    );
  try {
    layout = await ensureWorkspace({
      root: config.workspaceDir,
      repoUrl: config.repoUrl,
      remote: config.remote,
      main: config.mainBranch,
      log,
    });
  } catch (error) {
    if (!(error instanceof WorkspaceError)) throw error;
    log.error(error.message);
    return 2;
  }
  const rival = await recordWorkerRun(layout.root);
  if (rival) {
    log.error(inUse(config.workspaceDir, rival));
    return 2;
  }
  workspaceReady();
  // An agent that cannot start would fail every task it is given within milliseconds: refuse to claim any.
  const unstartable = agentStartProblem(config, layout.project);
  if (unstartable) {
    log.error(unstartable);
    return 2;
  }
  log.info(
    `registered as agent ${agent.name} (${agent.id}, ${agent.role}, profile ${agent.securityProfile}); harness ${config.harness}; project ${layout.project}${layout.git ? " (git)" : ""}, SWARMDECK_HOME ${layout.home}`,
  );

  // Before the setup script first runs: it runs the start-up files, which the agent could change while no worker watched.
  await startFromKnownStartupFiles(layout, log).catch((error: Error) =>
    log.warn(`could not check the start-up files against the worker's record: ${error.message}`),
  );
  const setup = new SetupGuard({ config, api, log, layout });
  const checkout = layout.git
    ? new CheckoutGate({ dir: layout.project, remote: config.remote, main: config.mainBranch, log, pinned: layout.remoteUrls })
    : null;
  let failures = 0;
  let cloneFailures = 0;
  const crashes = new CrashGuard(config.crash);
  let lastActivity = Date.now();
  /** One idle proposal per idle stretch: after one is filed, the next waits for a task to have run. */
  let proposed = false;
  while (!shutdown.aborted) {
    await reclaimHome(layout, log);
    try {
      if (await recloneIfGone(layout, { repoUrl: config.repoUrl, remote: config.remote, main: config.mainBranch, log })) {
        setup.rerun(`${layout.project} was cloned again`);
        cloneFailures = 0;
      }
    } catch (error) {
      if (!(error instanceof WorkspaceError)) throw error;
      if (error.fatal) {
        log.error(`${error.message}; no task was claimed (exit 2)`);
        return 2;
      }
      // Like a fetch that fails: no claim (it would find no checkout), and the next turn tries again.
      log.error(`${error.message}: claiming no tasks until the project is cloned again`);
      if (config.once) {
        return 1;
      }
      await sleep(backoffDelay(cloneFailures++, { baseMs: 1_000, maxMs: 60_000 }), shutdown);
      continue;
    }
    if (!(await setup.ready())) {
      // Strict setup failure: no task is claimed (none could succeed); the script is checked again until it changes.
      if (config.once) {
        log.info("the setup script fails (--once): exiting without claiming a task");
        break;
      }
      await sleep(config.setupRecheckMs, shutdown);
      continue;
    }
    if (checkout && !(await checkout.ready())) {
      // The repository cannot be fetched: a claim now would be given back and use one of the task's attempts.
      if (config.once) {
        log.info("the project's repository cannot be fetched (--once): exiting without claiming a task");
        return 1;
      }
      await sleep(checkout.retryDelay(), shutdown);
      continue;
    }
    let task: Awaited<ReturnType<typeof api.poll>>;
    let claimedAt = 0;
    try {
      task = await api.poll(config.pollWaitMs, shutdown);
      claimedAt = Date.now();
      failures = 0;
    } catch (error) {
      if (error instanceof WorkerApiError && (error.status === 401 || error.status === 403)) {
        log.error(`the app refused this worker's token: ${error.message}`);
        return 1;
      }
      const delay = backoffDelay(failures++);
      log.warn(`poll failed (${(error as Error).message}); retrying in ${delay} ms`);
      await sleep(delay, shutdown);
      continue;
    }
    if (shutdown.aborted && !task) break;
    if (task) {
      const end = await runTask({
        config,
        api,
        log,
        agentName: agent.name,
        agentId: agent.id,
        layout,
        task,
        shutdown,
        fetchedAt: checkout?.fetchedAt,
        claimedAt,
      });
      log.info(`task ${end}`, task.id);
      // Fetching works but the checkout did not: no claim until it does (worker/checkout-gate.ts).
      if (end === "checkout_unavailable") checkout?.markBroken(`task ${task.id}`);
      lastActivity = Date.now();
      proposed = false;
      if (end === "agent_unavailable") {
        // Installing or fixing the agent happens on this host (and may need a new environment): stop, like the start-up check.
        log.error(
          "the agent cannot be started: the task was given back and this worker stops claiming (exit 2); fix AGENT_COMMAND / CLAUDE_BIN and start it again",
        );
        return 2;
      }
      if (config.once) break;
      const pause = crashes.record(end, Date.now() - claimedAt);
      if (pause > 0) {
        log.error(
          `the agent failed ${crashes.quickFailures} tasks in a row, each within ${Math.round(config.crash.quickMs / 1000)} s of its claim (last: task ${task.id}, ${end}): it looks broken rather than the tasks. Claiming paused for ${Math.round(pause / 1000)} s (CRASH_PAUSE_AFTER); check the agent's setup (its API key, AGENT_COMMAND / CLAUDE_BIN) and the failed tasks' reasons`,
        );
        await sleep(pause, shutdown);
      }
      continue;
    }
    if (config.once) {
      log.info("no task came (--once): exiting");
      break;
    }
    if (!proposed && config.idleProposalAfterMs > 0 && Date.now() - lastActivity >= config.idleProposalAfterMs) {
      try {
        proposed = await proposeImprovement({ config, api, log, layout, shutdown });
      } catch (error) {
        log.warn(`idle proposal failed: ${(error as Error).message}`);
      }
      lastActivity = Date.now();
    }
  }
  log.info("worker stopped");
  return 0;
}

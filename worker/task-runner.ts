// One task from claim to finish: bundle, workspace, setup script, agent (with
// heartbeats, live sync and the control server for `swarm`), final sync, the git
// workflow when the workspace is a clone, then complete, fail or give back.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { TaskDto } from "../lib/contracts/tasks";
import { STARTUP_FILE_NAMES } from "../lib/setup-script/startup-file";
import { agentEnv, writeSwarmBin } from "./agent-env";
import { type AgentCommand, type AgentResult, type RunningAgent, startAgent } from "./agent-runner";
import { type ApiClient, WorkerApiError } from "./api-client";
import { claudeCommand } from "./claude-harness";
import type { WorkerConfig } from "./config";
import { startControlServer } from "./control-server";
import { git } from "./git";
import { finishTaskBranch, isGitWorkspace, prepareTaskBranch } from "./git-workflow";
import { Heartbeat } from "./heartbeat";
import { type Logger, tail } from "./log";
import { runSetupScript } from "./setup-runner";
import { WorkspaceSync } from "./sync";
import { prepareWorkspace, workspaceOwnedPaths } from "./workspace";

export type TaskEnd = "completed" | "failed" | "released" | "cancelled" | "lost";
type Stop = { why: "cancelled" | "lost" | "shutdown"; detail: string };

export async function runTask({
  config,
  api,
  log,
  agentName,
  task,
  shutdown,
}: {
  config: WorkerConfig;
  api: ApiClient;
  log: Logger;
  agentName: string;
  task: TaskDto;
  shutdown: AbortSignal;
}): Promise<TaskEnd> {
  const taskId = task.id;
  const dir = config.workspaceDir;
  const taskDir = await mkdtemp(path.join(tmpdir(), "swarmdeck-task-"));
  let stop: Stop | null = null;
  let current: RunningAgent | null = null;
  const halt = (next: Stop) => {
    if (stop) return;
    stop = next;
    log.warn(`stopping the agent: ${next.detail}`, taskId);
    current?.stop(next.detail);
  };
  const onShutdown = () => halt({ why: "shutdown", detail: "the worker is stopping (signal)" });
  shutdown.addEventListener("abort", onShutdown, { once: true });
  const heartbeat = new Heartbeat({
    api,
    log,
    taskId,
    intervalMs: config.heartbeatIntervalMs,
    onEnd: (why, detail) => halt({ why, detail }),
  });
  let control: Awaited<ReturnType<typeof startControlServer>> | null = null;
  let sync: WorkspaceSync | null = null;

  /** Finishing calls: a 409 means someone else finished or took it (cancelled, requeued), which is logged, not fatal. */
  const finish = async (end: TaskEnd, call: () => Promise<void>): Promise<TaskEnd> => {
    try {
      await call();
      return end;
    } catch (error) {
      log.error(`could not report the task as ${end}: ${(error as Error).message}`, taskId);
      return error instanceof WorkerApiError && error.status === 409 ? "lost" : end;
    }
  };
  const release = (reason: string) => {
    log.warn(`giving the task back: ${reason.split("\n")[0]}`, taskId);
    return finish("released", () => api.release(taskId, reason.slice(0, 4000)));
  };

  try {
    log.info(`claimed "${task.title}" (attempt ${task.attempts})`, taskId);
    heartbeat.start();
    const bundle = await api.bundle(taskId);
    const gitMode = await isGitWorkspace(dir).catch(() => false);
    let branch: string | null = null;
    if (gitMode) {
      await ensureGitIdentity(dir, agentName);
      branch = await prepareTaskBranch({
        dir,
        remote: config.remote,
        main: config.mainBranch,
        taskId,
        owned: [...new Set([...workspaceOwnedPaths("start-up.sh"), ...STARTUP_FILE_NAMES])],
      });
      log.info(`git: on ${branch} from the latest ${config.mainBranch}`, taskId);
    }
    const prepared = await prepareWorkspace({ workspaceDir: dir, taskDir, bundle });
    log.info(`workspace ready: ${prepared.files.size} identity files, setup script in ${prepared.startupFile}`, taskId);

    sync = new WorkspaceSync({ api, log, taskId, workspaceDir: dir, prepared, debounceMs: config.syncDebounceMs });
    control = await startControlServer({ api, log, taskId, sync, heartbeat });
    const swarmBin = await writeSwarmBin(taskDir);
    const env = agentEnv({
      base: process.env,
      taskId,
      promptFile: prepared.promptFile,
      systemPromptFile: prepared.systemPromptFile,
      workspaceDir: dir,
      swarmBin,
      control,
    });

    const setup = await runSetupScript({ workspaceDir: dir, startupFile: prepared.startupFile, env });
    if (setup.ok) log.info(`setup script ${prepared.startupFile} ran in ${setup.durationMs} ms`, taskId);
    else if (config.startupStrict) {
      const reason = `setup script ${prepared.startupFile} failed (exit ${setup.code ?? "signal"}; STARTUP_SCRIPT_STRICT is on):\n${tail(setup.output.trim(), 8000)}`;
      log.error(reason.split("\n")[0]!, taskId);
      return await finish("failed", () => api.fail(taskId, { failureReason: reason, output: tail(setup.output, config.maxOutputChars) }));
    } else {
      log.warn(`setup script ${prepared.startupFile} failed (exit ${setup.code}); going on (STARTUP_SCRIPT_STRICT=false)`, taskId);
      void heartbeat.progress(`setup script failed (exit ${setup.code}), continuing: ${tail(setup.output.trim(), 500)}`);
    }
    if (stop) return await endEarly(stop);

    const command: AgentCommand =
      config.harness === "claude"
        ? await claudeCommand({
            claudeBin: config.claudeBin,
            systemPrompt: bundle.systemPrompt,
            maxTurns: config.maxTurns,
            allowedTools: config.allowedTools,
            taskDir,
            swarmBin,
          })
        : { shell: config.agentCommand };
    const runAgent = async (prompt: string, purpose: string): Promise<AgentResult> => {
      log.info(`agent started (${purpose})`, taskId);
      const running = startAgent({
        command,
        cwd: dir,
        env,
        stdin: prompt,
        maxOutputChars: config.maxOutputChars,
        killGraceMs: config.killGraceMs,
      });
      current = running;
      if (stop) running.stop("already stopping");
      const result = await running.done;
      current = null;
      log.info(`agent exited (${purpose}): ${result.signal ? `signal ${result.signal}` : `code ${result.code}`}`, taskId);
      return result;
    };

    await sync.snapshotMemory();
    sync.watch();
    const result = await runAgent(bundle.taskPrompt, "task");
    sync.stop();
    await sync.syncNow("agent exit");
    if (stop) return await endEarly(stop);

    if (result.code !== 0) {
      const reason = `the agent exited with ${result.signal ? `signal ${result.signal}` : `code ${result.code}`}:\n${tail(result.combined.trim(), 4000) || "(no output)"}`;
      return await finish("failed", () => api.fail(taskId, { failureReason: reason, output: tail(result.stdout, config.maxOutputChars) }));
    }

    let note = "";
    if (gitMode && branch) {
      const outcome = await finishTaskBranch({
        dir,
        remote: config.remote,
        main: config.mainBranch,
        branch,
        message: `${branch}: ${task.title}`,
        verifyRetries: config.verifyRetries,
        stopped: () => stop !== null,
        rerun: async (prompt, purpose) => {
          const rerun = await runAgent(prompt, purpose);
          return { ok: rerun.code === 0, output: rerun.stdout };
        },
      });
      await sync.syncNow("after git workflow");
      if (stop) return await endEarly(stop);
      if (outcome.kind === "failed") return await release(`git workflow: ${outcome.reason}`);
      note =
        outcome.kind === "merged"
          ? `merged ${outcome.branch} into ${config.mainBranch} at ${outcome.sha.slice(0, 12)}`
          : "no code changes: nothing to commit";
      log.info(`git: ${note}`, taskId);
    }
    const output = note ? `${result.stdout.trimEnd()}\n\n---\n${note}\n` : result.stdout;
    log.info(`completing (${output.length} characters of output)`, taskId);
    return await finish("completed", () =>
      api.complete(taskId, { output: tail(output, config.maxOutputChars), ...(note ? { summary: note } : {}) }),
    );
  } catch (error) {
    log.error(`task error: ${(error as Error).stack ?? error}`, taskId);
    if (stop) return await endEarly(stop);
    return await release(`the worker hit an error: ${(error as Error).message}`);
  } finally {
    shutdown.removeEventListener("abort", onShutdown);
    sync?.stop();
    await heartbeat.stop();
    await control?.close();
    await rm(taskDir, { recursive: true, force: true });
  }

  async function endEarly(why: Stop): Promise<TaskEnd> {
    if (why.why === "cancelled") {
      log.info("the task was cancelled; the agent is stopped", taskId);
      return "cancelled";
    }
    if (why.why === "lost") {
      log.warn(`not finishing: ${why.detail}`, taskId);
      return "lost";
    }
    return release(`the worker was stopped before the task finished (${why.detail}); giving it back`);
  }
}

async function ensureGitIdentity(dir: string, agentName: string) {
  if (!(await git(dir, ["config", "user.name"])).stdout.trim()) await git(dir, ["config", "user.name", agentName]);
  if (!(await git(dir, ["config", "user.email"])).stdout.trim()) await git(dir, ["config", "user.email", `${agentName}@swarmdeck.local`]);
}

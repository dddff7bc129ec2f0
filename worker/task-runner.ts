// One task from claim to finish: bundle, workspace, setup script, agent (with
// heartbeats, live sync and the control server for `swarm`), the git workflow when
// the workspace is a clone, the post-task reflection, the final sync, then complete,
// fail or give back.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
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
import { type ReflectionOutcome, reflectionCommand, reflectionMemoryContent, reflectionMemoryName, reflectionPrompt } from "./reflection";
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
    const runAgent = async (
      prompt: string,
      purpose: string,
      options: { command?: AgentCommand; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
    ): Promise<AgentResult & { timedOut: boolean }> => {
      log.info(`agent started (${purpose})`, taskId);
      const running = startAgent({
        command: options.command ?? command,
        cwd: dir,
        env: options.env ?? env,
        stdin: prompt,
        maxOutputChars: config.maxOutputChars,
        killGraceMs: config.killGraceMs,
      });
      current = running;
      if (stop) running.stop("already stopping");
      let timedOut = false;
      const timer =
        options.timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              timedOut = true;
              log.warn(`${purpose} took longer than ${options.timeoutMs} ms; stopping it`, taskId);
              running.stop("timed out");
            }, options.timeoutMs);
      const result = await running.done;
      clearTimeout(timer);
      current = null;
      log.info(`agent exited (${purpose}): ${result.signal ? `signal ${result.signal}` : `code ${result.code}`}`, taskId);
      return { ...result, timedOut };
    };

    /**
     * P5: one follow-up turn once the task's run has ended, then the final sync
     * (so what the reflection wrote reaches the app) and its output as one memory.
     * Whatever happens here, the task's outcome stays what the run decided.
     */
    const reflect = async (outcome: ReflectionOutcome, taskOutput: string): Promise<void> => {
      try {
        if (stop) return;
        const plan = await reflectionCommand({ config, systemPrompt: bundle.systemPrompt, taskDir, swarmBin });
        if ("skip" in plan) {
          log.info(`reflection skipped: ${plan.skip}`, taskId);
          return;
        }
        const outputFile = path.join(taskDir, "task-output.txt");
        await writeFile(outputFile, taskOutput);
        const prompt = reflectionPrompt({ title: task.title, outcome, startupFile: prepared.startupFile });
        const promptFile = path.join(taskDir, "reflection-prompt.md");
        await writeFile(promptFile, prompt);
        sync?.watch();
        let run: AgentResult & { timedOut: boolean };
        try {
          run = await runAgent(prompt, `reflection, ${plan.how}`, {
            command: plan.command,
            env: {
              ...env,
              SWARMDECK_PROMPT_FILE: promptFile,
              SWARMDECK_REFLECTION: "1",
              SWARMDECK_TASK_STATUS: outcome.status,
              SWARMDECK_TASK_OUTPUT_FILE: outputFile,
            },
            timeoutMs: config.reflectionTimeoutMs,
          });
        } finally {
          sync?.stop();
          await sync?.syncNow("after reflection");
        }
        if (stop) return;
        if (run.timedOut || run.code !== 0) {
          const why = run.timedOut
            ? `timed out after ${config.reflectionTimeoutMs} ms (REFLECTION_TIMEOUT_MS)`
            : `exited with ${run.signal ? `signal ${run.signal}` : `code ${run.code}`}`;
          const lastLine = run.combined.trim().split("\n").at(-1)?.slice(0, 300) ?? "";
          log.warn(`reflection ${why}; nothing stored${lastLine ? `: ${lastLine}` : ""}`, taskId);
          await heartbeat.progress(`post-task reflection ${why}: ${tail(run.combined.trim(), 500) || "(no output)"}`);
          return;
        }
        const content = reflectionMemoryContent(run.stdout);
        if (content === null) {
          log.info("reflection: nothing new to remember (not stored)", taskId);
          return;
        }
        const { ids } = await api.storeMemory({
          name: reflectionMemoryName(task.title),
          content,
          scope: "agent",
          source: "reflection",
          taskId,
        });
        log.info(`reflection stored as a memory (${content.length} characters, ${ids.length} chunk${ids.length === 1 ? "" : "s"})`, taskId);
      } catch (error) {
        log.warn(`reflection failed: ${(error as Error).message}`, taskId);
        await heartbeat.progress(`post-task reflection failed: ${(error as Error).message}`).catch(() => {});
      }
    };
    /** After the reflection: a cancelled or lost task is not finished; a worker shutdown still reports the outcome. */
    const stoppedDuringReflection = (): Stop | null => (stop && (stop as Stop).why !== "shutdown" ? stop : null);

    await sync.snapshotMemory();
    sync.watch();
    const result = await runAgent(bundle.taskPrompt, "task");
    sync.stop();
    await sync.syncNow("agent exit");
    if (stop) return await endEarly(stop);

    if (result.code !== 0) {
      const reason = `the agent exited with ${result.signal ? `signal ${result.signal}` : `code ${result.code}`}:\n${tail(result.combined.trim(), 4000) || "(no output)"}`;
      await reflect({ status: "failed", detail: reason }, result.combined);
      const halted = stoppedDuringReflection();
      if (halted) return await endEarly(halted);
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
    await reflect({ status: "completed", ...(note ? { detail: note } : {}) }, output);
    const halted = stoppedDuringReflection();
    if (halted) return await endEarly(halted);
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

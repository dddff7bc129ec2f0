// One task from claim to finish: bundle, workspace (the setup script is written,
// but run between tasks: setup-guard.ts), agent (with
// heartbeats, live sync and the control server for `swarm`), the git workflow when
// the workspace is a clone, the post-task reflection, the final sync, then complete,
// fail or give back.
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { TaskDto } from "../lib/contracts/tasks";
import { ActivityWatch, minutesText, taskTimeLimit } from "./activity";
import { agentStartProblem, isSpawnFailure } from "./agent-check";
import { agentEnv, writeSwarmBin } from "./agent-env";
import { type AgentCommand, type AgentResult, type RunningAgent, startAgent } from "./agent-runner";
import { agentProcessEnv, handOver } from "./agent-user";
import { type ApiClient, WorkerApiError } from "./api-client";
import { backoffDelay, sleep } from "./backoff";
import { CapabilitiesError, claudeDeniedTools, taskCapabilities } from "./capabilities";
import { claudeCommand } from "./claude-harness";
import type { WorkerConfig } from "./config";
import { startControlServer } from "./control-server";
import { git } from "./git";
import { finishTaskBranch, prepareTaskBranch } from "./git-workflow";
import { Heartbeat } from "./heartbeat";
import { killRunLeftovers } from "./leftover-agents";
import { type Logger, tail } from "./log";
import { type ReflectionOutcome, reflectionCommand, reflectionMemoryContent, reflectionMemoryName, reflectionPrompt } from "./reflection";
import { sessionTranscript } from "./session-transcript";
import { keepStartupBaseline } from "./startup-baseline";
import { WorkspaceSync } from "./sync";
import { prepareWorkspace, putBackStartupFiles, type StartupSnapshot, snapshotStartupFiles } from "./workspace";
import type { WorkspaceLayout } from "./workspace-layout";

/**
 * The last two are give-backs that say the worker is broken, not the task: its agent
 * cannot be started, or its checkout cannot be fetched. The loop stops claiming then.
 */
/** The worker's sync state (worker/sync.ts), in WORKSPACE_DIR beside home/ and project/, not the agent's. */
export const SYNC_STATE_FILE = "sync-state.json";
/**
 * A claim answered this soon after the pre-claim fetch starts from that fetch: the
 * task was waiting when the poll began, so anything pushed before it was made is in.
 * A claim later than this came out of a long poll's wait, and the task may follow a
 * push made meanwhile (push, then hand out the task): main is fetched again.
 */
const FRESH_FETCH_MS = 1_000;

export type TaskEnd = "completed" | "failed" | "released" | "cancelled" | "lost" | "agent_unavailable" | "checkout_unavailable";
type Stop = { why: "cancelled" | "lost" | "shutdown"; detail: string };

/** The next wait before asking the app again: backoff, or longer when a 429 says when (Retry-After, also in its details). */
function retryDelay(error: WorkerApiError, attempt: number): number {
  return Math.max(backoffDelay(attempt, { baseMs: 1_000, maxMs: 30_000 }), error.retryAfterMs ?? 0);
}

export async function runTask({
  config,
  api,
  log,
  agentName,
  agentId,
  layout,
  task,
  shutdown,
  fetchedAt = 0,
  claimedAt = Date.now(),
}: {
  config: WorkerConfig;
  api: ApiClient;
  log: Logger;
  agentName: string;
  /** The agent's id from the worker's registration. */
  agentId: string;
  layout: WorkspaceLayout;
  task: TaskDto;
  shutdown: AbortSignal;
  /** When the worker last fetched the project's remote (worker/checkout-gate.ts), if it did. */
  fetchedAt?: number;
  /** When the poll that claimed the task answered. */
  claimedAt?: number;
}): Promise<TaskEnd> {
  const taskId = task.id;
  // The agent works in the project checkout; its own files are in layout.home, beside it.
  const dir = layout.project;
  const taskDir = await mkdtemp(path.join(tmpdir(), "swarmdeck-task-"));
  const startedAt = Date.now();
  /** P4: the session the app's summary model reads (Claude Code's own transcript, else the captured output). */
  const session = async (output: string) => {
    // Claude Code ran with the agent's environment (its HOME with AGENT_USER): its transcript is there.
    const env = agentProcessEnv(process.env);
    const found = await sessionTranscript({ harness: config.harness, cwd: layout.project, since: startedAt, output, env }).catch(
      () => null,
    );
    return found ? { session: found } : {};
  };
  let stop: Stop | null = null;
  let current: RunningAgent | null = null;
  const halt = (next: Stop) => {
    if (stop) return;
    stop = next;
    log.warn(`stopping the agent: ${next.detail}`, taskId);
    current?.stop(next.detail);
  };
  const onShutdown = () => halt({ why: "shutdown", detail: "the worker is stopping (signal)" });
  /** `swarm release "reason"`: the agent gives the task back; it is stopped if it does not exit by itself. */
  let givenBack: string | null = null;
  let giveBackTimer: NodeJS.Timeout | undefined;
  const requestRelease = (reason: string) => {
    if (givenBack !== null) return;
    givenBack = reason;
    log.warn(`the agent gives the task back: ${reason.split("\n")[0]}`, taskId);
    giveBackTimer = setTimeout(() => current?.stop("the agent gave the task back"), config.killGraceMs);
  };
  /** The app fails the task when this give-back uses its last attempt (lib/tasks/worker-tasks.ts). */
  const lastAttempt = task.maxAttempts !== undefined && task.attempts >= task.maxAttempts;
  shutdown.addEventListener("abort", onShutdown, { once: true });
  /** Signs of life and the time / no-progress limits; made once the bundle says what the limit is. */
  let activity: ActivityWatch | null = null;
  const heartbeat = new Heartbeat({
    api,
    log,
    taskId,
    intervalMs: config.heartbeatIntervalMs,
    onEnd: (why, detail) => halt({ why, detail }),
    lastActivity: () => activity?.last,
  });
  let control: Awaited<ReturnType<typeof startControlServer>> | null = null;
  let sync: WorkspaceSync | null = null;
  /** The start-up files as prepared for the task: the agent's runs do not leave theirs behind (worker/workspace.ts). */
  let startupFiles: StartupSnapshot | null = null;

  /**
   * Finishing calls. A 409 means someone else finished or took it (cancelled, requeued),
   * which is logged, not fatal. An app that is down or overloaded (no answer, 429, 5xx)
   * is asked again with backoff for up to REPORT_RETRY_MS while the heartbeat keeps the
   * task: the work is done (perhaps merged), and an unreported task would be run again.
   * A worker told to stop makes one more try at most.
   */
  const finish = async (end: TaskEnd, call: () => Promise<void>): Promise<TaskEnd> => {
    // What the last sync could not send is kept first: a worker stopped while it retries loses nothing.
    await sync?.keepUnsent().catch((error: Error) => log.warn(`could not keep the unsent edits: ${error.message}`, taskId));
    if (startupFiles) await putBackStartupFiles(layout.home, startupFiles, log, taskId);
    const deadline = Date.now() + config.reportRetryMs;
    for (let attempt = 0; ; attempt++) {
      try {
        await call();
        if (attempt > 0) log.info(`reported the task as ${end} after ${attempt} retr${attempt === 1 ? "y" : "ies"}`, taskId);
        return end;
      } catch (error) {
        const delay = error instanceof WorkerApiError && error.transient ? retryDelay(error, attempt) : null;
        if (delay !== null && !shutdown.aborted && Date.now() + delay <= deadline) {
          log.warn(`could not report the task as ${end} (${(error as Error).message}); retrying in ${delay} ms`, taskId);
          await sleep(delay, shutdown);
          continue;
        }
        log.error(`could not report the task as ${end}: ${(error as Error).message}`, taskId);
        return error instanceof WorkerApiError && error.status === 409 ? "lost" : end;
      }
    }
  };
  /** A give-back; on the task's last attempt the app fails it instead, and the end says so. */
  const release = async (reason: string): Promise<TaskEnd> => {
    log.warn(`giving the task back${lastAttempt ? " on its last attempt" : ""}: ${reason.split("\n")[0]}`, taskId);
    let status: string | null = null;
    const end = await finish("released", async () => {
      status = await api.release(taskId, reason.slice(0, 4000));
    });
    if (end === "released" && status === "failed") {
      log.warn("that was its last attempt: the app failed the task", taskId);
      return "failed";
    }
    return end;
  };

  try {
    log.info(`claimed "${task.title}" (attempt ${task.attempts})`, taskId);
    heartbeat.start();
    const bundle = await api.bundle(taskId);
    // The operator's cage (capabilities.yaml), narrowed by this worker's environment.
    let caps: ReturnType<typeof taskCapabilities>;
    try {
      caps = taskCapabilities(bundle, config);
    } catch (error) {
      if (!(error instanceof CapabilitiesError)) throw error;
      log.error(error.message.split("\n")[0]!, taskId);
      return await finish("failed", () => api.fail(taskId, { failureReason: error.message }));
    }
    if (caps.upgraded) {
      log.warn(
        `capabilities.yaml is in its older shape; enforcing its upgrade (save it on the agent's Identity tab to make that permanent): ${caps.upgraded.join("; ")}`,
        taskId,
      );
    }
    log.info(
      `capabilities: tools ${caps.allowedTools.join(",") || "(none)"}${caps.deniedTools.length ? `; denied ${caps.deniedTools.join(",")}` : ""}; at most ${caps.maxTaskMinutes} min, ${caps.maxTurns} turns`,
      taskId,
    );
    const gitMode = layout.git;
    const remotePin = {
      pinned: layout.remoteUrls,
      // In the log and on the task's timeline: the operator sees what the agent had changed, and that it was undone.
      onRepinned: (was: string) => {
        const note = `git: ${config.remote} had been changed in the checkout (${was}): put back to ${layout.remoteUrls?.fetch}`;
        log.warn(note, taskId);
        void heartbeat.progress(note).catch(() => {});
      },
      // Not undone (the worker cannot know which history is right), but never silent.
      onMainRewritten: (what: string) => {
        const note = `git: ${what}; the task goes on from it`;
        log.warn(note, taskId);
        void heartbeat.progress(note).catch(() => {});
      },
    };
    let branch: string | null = null;
    /** The commit of main the task started from: main must still contain it when the task merges. */
    let base: string | undefined;
    if (gitMode) {
      await ensureGitIdentity(dir, agentName);
      try {
        branch = await prepareTaskBranch({
          dir,
          remote: config.remote,
          main: config.mainBranch,
          taskId,
          // Fetched just before a claim answered at once: one fetch per task, not two.
          fetched: claimedAt - fetchedAt < FRESH_FETCH_MS,
          ...remotePin,
          // What an earlier run left half done in the checkout, put right: on the log and the task's timeline.
          onRepaired: (what) => {
            const note = `git: the checkout was repaired before the task: ${what}`;
            log.warn(note, taskId);
            void heartbeat.progress(note).catch(() => {});
          },
        });
      } catch (error) {
        // The repository, not the task: no reflection, no failure; the loop waits until a fetch works again.
        const why = (error as Error).message;
        log.error(`the checkout could not be prepared (${why.split("\n")[0]}): giving the task back`, taskId);
        await release(`the worker could not prepare its checkout of the project (not the task's fault): ${why}`);
        return "checkout_unavailable";
      }
      log.info(`git: on ${branch} from the latest ${config.mainBranch}`, taskId);
      base = (await git(dir, ["rev-parse", "--verify", "--quiet", "HEAD"])).stdout.trim() || undefined;
    }
    const prepared = await prepareWorkspace({ homeDir: layout.home, taskDir, bundle });
    startupFiles = await snapshotStartupFiles(layout.home, { name: prepared.startupFile, global: prepared.setupScript.global });
    await keepStartupBaseline(layout.root, startupFiles);
    const limit = taskTimeLimit(bundle, config.maxTaskMinutes);
    activity = new ActivityWatch({
      timeLimitMinutes: limit.minutes,
      noProgressMinutes: config.noProgressMinutes,
      onLimit: (hit) => {
        log.warn(`${hit.reason}: stopping the agent's process group (TERM, then KILL after ${config.killGraceMs} ms)`, taskId);
        current?.stop(hit.reason);
      },
    });
    log.info(
      `limits: ${minutesText(limit.minutes)} (${limit.from}), no progress ${config.noProgressMinutes > 0 ? minutesText(config.noProgressMinutes) : "off"}`,
      taskId,
    );
    // What the worker just wrote becomes the agent's; the task folder (prompts, `swarm`) it may read, not change.
    await handOver([layout.home]);
    await chmod(taskDir, 0o755);
    log.info(`workspace ready: ${prepared.files.size} identity files, setup script in ${prepared.startupFile}`, taskId);

    sync = new WorkspaceSync({
      api,
      log,
      taskId,
      homeDir: layout.home,
      prepared,
      debounceMs: config.syncDebounceMs,
      stateFile: path.join(layout.root, SYNC_STATE_FILE),
      agentId,
    });
    control = await startControlServer({
      api,
      log,
      taskId,
      sync,
      heartbeat,
      release: requestRelease,
      onActivity: (what) => activity?.touch(what),
    });
    const swarmBin = await writeSwarmBin(taskDir);
    const env = agentEnv({
      base: process.env,
      taskId,
      promptFile: prepared.promptFile,
      systemPromptFile: prepared.systemPromptFile,
      workspaceDir: dir,
      homeDir: layout.home,
      swarmBin,
      control,
    });

    // The setup script is not run here: the worker runs it at start and when it changes, between tasks (setup-guard.ts).
    if (stop) return await endEarly(stop);

    const command: AgentCommand =
      config.harness === "claude"
        ? await claudeCommand({
            claudeBin: config.claudeBin,
            systemPrompt: bundle.systemPrompt,
            maxTurns: caps.maxTurns,
            allowedTools: caps.allowedTools,
            deniedTools: claudeDeniedTools(caps),
            taskDir,
            swarmBin,
            homeDir: layout.home,
            mcp: { url: control.url, secret: control.secret, taskId },
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
        maxOutputChars: caps.maxOutputChars,
        killGraceMs: config.killGraceMs,
        onOutput: (chunk) => activity?.touch(`output: ${chunk.trim().split("\n").at(-1) ?? ""}`),
      });
      current = running;
      const watched = activity;
      watched?.agentStarted();
      if (stop) running.stop("already stopping");
      // Past the task's limit no further run of the task starts (the reflection has its own bound and runs after stop()).
      else if (activity?.limitHit) running.stop(activity.limitHit.reason);
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
      watched?.agentStopped();
      clearTimeout(timer);
      current = null;
      log.info(`agent exited (${purpose}): ${result.signal ? `signal ${result.signal}` : `code ${result.code}`}`, taskId);
      // Its process group went with it (worker/agent-runner.ts); what it started outside that group goes now.
      if (result.leftInGroup && !result.stopped) log.warn("the agent left processes running in its process group: stopped them", taskId);
      const left = await killRunLeftovers({ SWARMDECK_TASK_ID: taskId });
      if (left.killed > 0 || left.survivors > 0) {
        log.warn(
          `stopped ${left.killed} process(es) the agent left running outside its process group${left.survivors > 0 ? `; ${left.survivors} could not be stopped` : ""}`,
          taskId,
        );
      }
      return { ...result, timedOut };
    };

    /**
     * P5: one follow-up turn once the task's run has ended, then the final sync
     * (so what the reflection wrote reaches the app) and its output as one memory.
     * Whatever happens here, the task's outcome stays what the run decided.
     */
    const reflect = async (outcome: ReflectionOutcome, taskOutput: string): Promise<void> => {
      // The task's limits are over: the reflection is bounded by REFLECTION_TIMEOUT_MS instead.
      activity?.stop();
      activity = null;
      try {
        if (stop) return;
        const plan = await reflectionCommand({ config, systemPrompt: bundle.systemPrompt, taskDir, swarmBin, homeDir: layout.home, caps });
        if ("skip" in plan) {
          log.info(`reflection skipped: ${plan.skip}`, taskId);
          return;
        }
        const outputFile = path.join(taskDir, "task-output.txt");
        await writeFile(outputFile, taskOutput);
        const prompt = reflectionPrompt({ title: task.title, outcome, startupFile: prepared.startupFile, home: layout.home });
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
    /**
     * A give-back (the agent's `swarm release`, a git workflow failure): on the task's last
     * attempt the app turns it into a failure, so it first gets the reflection any failure gets.
     */
    const giveBack = async (reason: string, output: string): Promise<TaskEnd> => {
      if (lastAttempt) {
        await reflect({ status: "failed", detail: reason }, output);
        const halted = stoppedDuringReflection();
        if (halted) return await endEarly(halted);
      }
      return await release(reason);
    };

    // Edits an earlier task could not send are back in the home: they go first.
    if ((await sync.restore()) > 0) await sync.syncNow("carried over from an earlier task");
    sync.watch();
    activity.start([dir, layout.home]);
    const result = await runAgent(bundle.taskPrompt, "task");
    clearTimeout(giveBackTimer);
    sync.stop();
    await sync.syncNow("agent exit");
    if (stop) return await endEarly(stop);
    const unstartable = agentNeverRan(result, config, dir);
    if (unstartable) {
      // The worker's configuration, not the task: no reflection, no failure, no lesson.
      log.error(`the agent could not be started: ${unstartable}`, taskId);
      await release(`the worker could not start its agent (not the task's fault): ${unstartable}`);
      return "agent_unavailable";
    }
    const limitHit = activity?.limitHit;
    if (limitHit) return await giveBack(`${limitHit.reason}\n${tail(result.combined.trim(), 2000)}`, result.combined);
    if (givenBack !== null) return await giveBack(givenBack, result.combined);

    if (result.code !== 0) {
      const reason = `the agent exited with ${result.signal ? `signal ${result.signal}` : `code ${result.code}`}:\n${tail(result.combined.trim(), 4000) || "(no output)"}`;
      await reflect({ status: "failed", detail: reason }, result.combined);
      const halted = stoppedDuringReflection();
      if (halted) return await endEarly(halted);
      const failedSession = await session(result.combined);
      return await finish("failed", () =>
        api.fail(taskId, { failureReason: reason, output: tail(result.stdout, caps.maxOutputChars), ...failedSession }),
      );
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
        base,
        ...remotePin,
        stopped: () => stop !== null || Boolean(activity?.limitHit),
        rerun: async (prompt, purpose) => {
          const rerun = await runAgent(prompt, purpose);
          return { ok: rerun.code === 0, output: rerun.stdout };
        },
      });
      await sync.syncNow("after git workflow");
      if (stop) return await endEarly(stop);
      // Work that reached main is done, whatever the clock says; otherwise a limit hit during the workflow gives the task back.
      const late = activity?.limitHit;
      if (late && outcome.kind !== "merged") return await giveBack(`${late.reason} (during the git workflow)`, result.combined);
      if (outcome.kind === "failed" && outcome.refused) {
        // Not the worker's checkout breaking: the agent sent the remote elsewhere, and the work is not pushed.
        const reason = `git workflow: ${outcome.reason}`;
        log.error(reason.split("\n")[0]!, taskId);
        await reflect({ status: "failed", detail: reason }, result.combined);
        const halted = stoppedDuringReflection();
        if (halted) return await endEarly(halted);
        return await finish("failed", () => api.fail(taskId, { failureReason: reason, output: tail(result.stdout, caps.maxOutputChars) }));
      }
      if (outcome.kind === "failed") return await giveBack(`git workflow: ${outcome.reason}`, result.combined);
      note =
        outcome.kind === "merged"
          ? `merged ${outcome.branch} into ${config.mainBranch} at ${outcome.sha.slice(0, 12)}`
          : "no code changes: nothing to commit";
      log.info(`git: ${note}`, taskId);
      if (outcome.kind === "merged" && outcome.leftover) log.warn(`git: ${outcome.leftover}`, taskId);
    }
    const output = note ? `${result.stdout.trimEnd()}\n\n---\n${note}\n` : result.stdout;
    await reflect({ status: "completed", ...(note ? { detail: note } : {}) }, output);
    const halted = stoppedDuringReflection();
    if (halted) return await endEarly(halted);
    log.info(`completing (${output.length} characters of output)`, taskId);
    const completedSession = await session(result.combined);
    return await finish("completed", () =>
      api.complete(taskId, { output: tail(output, caps.maxOutputChars), ...(note ? { summary: note } : {}), ...completedSession }),
    );
  } catch (error) {
    log.error(`task error: ${(error as Error).stack ?? error}`, taskId);
    if (stop) return await endEarly(stop);
    return await release(`the worker hit an error: ${(error as Error).message}`);
  } finally {
    activity?.stop();
    clearTimeout(giveBackTimer);
    shutdown.removeEventListener("abort", onShutdown);
    sync?.stop();
    await sync?.keepUnsent().catch((error: Error) => log.warn(`could not keep the unsent edits: ${error.message}`, taskId));
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

/**
 * Why the agent never ran, or null when it did: the spawn itself failed (ENOENT,
 * EACCES), or the shell of AGENT_COMMAND answered 126/127 and its program is indeed
 * missing or not executable (an agent script whose own command is missing is the task's).
 */
function agentNeverRan(result: AgentResult, config: WorkerConfig, cwd: string): string | null {
  if (isSpawnFailure(result.spawnError)) return result.spawnError!.message;
  if (config.harness === "command" && (result.code === 126 || result.code === 127)) {
    const problem = agentStartProblem(config, cwd);
    if (problem) return problem.split("\n").at(-1)!.trim();
  }
  return null;
}

async function ensureGitIdentity(dir: string, agentName: string) {
  if (!(await git(dir, ["config", "user.name"])).stdout.trim()) await git(dir, ["config", "user.name", agentName]);
  if (!(await git(dir, ["config", "user.email"])).stdout.trim()) await git(dir, ["config", "user.email", `${agentName}@swarmdeck.local`]);
}

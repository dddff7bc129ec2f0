// IDLE_PROPOSAL_AFTER: when no task came for that long, the agent is asked for one
// improvement proposal, filed as an unassigned task tagged `proposal` for an
// operator to accept (reference 004, "When No Tickets Are Available"). The run has
// the task time limit (MAX_TASK_MINUTES) and stops, process group and all, when the
// worker is told to stop; once one is filed the loop asks again only after a task.

import { agentEnv } from "./agent-env";
import { type AgentCommand, startAgent } from "./agent-runner";
import type { ApiClient } from "./api-client";
import type { WorkerConfig } from "./config";
import { killRunLeftovers } from "./leftover-agents";
import type { Logger } from "./log";
import { keepStartupBaseline } from "./startup-baseline";
import { putBackStartupFiles, snapshotStartupFiles } from "./workspace";
import type { WorkspaceLayout } from "./workspace-layout";

export const IDLE_PROMPT = `You have no task right now. Review the project in your working directory and
propose ONE concrete improvement that would be worth doing next. Do not change any files.
Answer with the proposal's title on the first line (at most 120 characters), then a blank
line, then the description: what to change, why it matters, and how to verify it.`;

/** First non-empty line → title (without markdown heading or "Title:"), the rest → description. */
export function parseProposal(output: string): { title: string; description: string } | null {
  const lines = output.replace(/\r\n/g, "\n").split("\n");
  const first = lines.findIndex((line) => line.trim() !== "");
  if (first === -1) return null;
  const title = lines[first]!.trim()
    .replace(/^#+\s*/, "")
    .replace(/^title:\s*/i, "")
    .replace(/^\*\*(.*)\*\*$/, "$1")
    .trim()
    .slice(0, 200);
  if (!title) return null;
  return {
    title,
    description: lines
      .slice(first + 1)
      .join("\n")
      .trim(),
  };
}

/** Read-only: the idle proposal runs outside any task and its capabilities. */
const IDLE_TOOLS = ["Read", "Glob", "Grep"];

export async function proposeImprovement({
  config,
  api,
  log,
  layout,
  shutdown,
}: {
  config: WorkerConfig;
  api: ApiClient;
  log: Logger;
  layout: WorkspaceLayout;
  /** The worker's stop signal: the idle run is stopped like a task's (its whole process group). */
  shutdown?: AbortSignal;
}): Promise<boolean> {
  if (shutdown?.aborted) return false;
  log.info("idle: asking the agent for an improvement proposal");
  // Read-only tools and no hooks: a proposal changes nothing and has no task to sync to.
  const command: AgentCommand =
    config.harness === "claude"
      ? {
          file: config.claudeBin,
          args: [
            "-p",
            "--output-format",
            "text",
            "--max-turns",
            String(config.capabilityNarrowing.maxTurns ?? 50),
            "--allowedTools",
            IDLE_TOOLS.filter((tool) => !config.capabilityNarrowing.deniedTools?.includes(tool)).join(","),
          ],
        }
      : { shell: config.agentCommand };
  const startupFiles = await snapshotStartupFiles(layout.home);
  await keepStartupBaseline(layout.root, startupFiles);
  const running = startAgent({
    command,
    cwd: layout.project,
    env: { ...agentEnv({ base: process.env, workspaceDir: layout.project, homeDir: layout.home }), SWARMDECK_IDLE_PROPOSAL: "1" },
    stdin: IDLE_PROMPT,
    maxOutputChars: 64 * 1024,
    killGraceMs: config.killGraceMs,
  });
  const onShutdown = () => {
    log.info("idle: the worker is stopping; stopping the proposal run");
    running.stop("the worker is stopping");
  };
  shutdown?.addEventListener("abort", onShutdown, { once: true });
  const limitMs = Math.round(config.maxTaskMinutes * 60_000);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    log.warn(`idle: the proposal run took longer than ${config.maxTaskMinutes} min (MAX_TASK_MINUTES); stopping it`);
    running.stop("timed out");
  }, limitMs);
  let result: Awaited<typeof running.done>;
  try {
    result = await running.done;
  } finally {
    clearTimeout(timer);
    shutdown?.removeEventListener("abort", onShutdown);
    // What it started outside its process group goes before the start-up files are put back (worker/README.md).
    const left = await killRunLeftovers({ SWARMDECK_IDLE_PROPOSAL: "1" });
    if (left.killed > 0) log.warn(`idle: stopped ${left.killed} process(es) the proposal run left running outside its process group`);
    await putBackStartupFiles(layout.home, startupFiles, log);
  }
  if (result.stopped) {
    log.warn(`idle: no proposal (${timedOut ? "timed out" : "stopped"})`);
    return false;
  }
  const proposal = result.code === 0 ? parseProposal(result.stdout) : null;
  if (!proposal) {
    log.warn(`idle: no proposal (agent exit ${result.code}, ${result.stdout.length} characters)`);
    return false;
  }
  const task = await api.createTask({ title: proposal.title, description: proposal.description, tags: ["proposal"] });
  log.info(`idle: filed proposal "${proposal.title}" as task ${task.id}`);
  return true;
}

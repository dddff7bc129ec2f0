// Runs the agent as its own process group: workspace as cwd, the task prompt on
// stdin, output collected within bounds. stop() is SIGTERM, then SIGKILL after a
// grace period, for the whole group (an agent's children must not outlive it). With
// AGENT_USER it runs as that user (worker/agent-user.ts). When the agent exits by itself,
// what it left running in its group is killed with SIGKILL (once stopped, the group has
// the rest of its grace), and the run ends even if something outside the group still
// holds its output open (worker/process-group.ts).
import { spawn } from "node:child_process";
import { agentSpawnIdentity } from "./agent-user";
import { groupGone, signalGroup, trackGroup, untrackGroup, whenEnded } from "./process-group";

export type AgentCommand = { shell: string } | { file: string; args: string[] };

export type AgentResult = {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** stdout, bounded to its last maxOutputChars characters. */
  stdout: string;
  /** stdout and stderr interleaved, bounded: the tail a failure reason quotes. */
  combined: string;
  /** True when stop() ended it (cancelled, SIGTERM of the worker, lost task). */
  stopped: boolean;
  /** Processes of its group were still running when it exited (killed then). */
  leftInGroup: boolean;
  truncated: boolean;
  /** The process could not be started at all (ENOENT, EACCES, ...): the agent never ran. */
  spawnError?: NodeJS.ErrnoException;
};

export type RunningAgent = { pid: number | undefined; done: Promise<AgentResult>; stop(reason: string): void };

export function startAgent({
  command,
  cwd,
  env,
  stdin,
  maxOutputChars,
  killGraceMs,
  onOutput,
}: {
  command: AgentCommand;
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdin: string;
  maxOutputChars: number;
  killGraceMs: number;
  onOutput?: (chunk: string) => void;
}): RunningAgent {
  const child =
    "shell" in command
      ? spawn("/bin/sh", ["-c", command.shell], { cwd, env, stdio: ["pipe", "pipe", "pipe"], detached: true, ...agentSpawnIdentity() })
      : spawn(command.file, command.args, { cwd, env, stdio: ["pipe", "pipe", "pipe"], detached: true, ...agentSpawnIdentity() });
  const pid = child.pid;
  // A second signal to the worker kills it before the worker exits (worker/main.ts).
  trackGroup(pid);
  let stdout = "";
  let combined = "";
  let truncated = false;
  let stopped = false;
  let killTimer: NodeJS.Timeout | undefined;
  let spawnError: NodeJS.ErrnoException | undefined;
  const keep = (text: string, max: number) => {
    if (text.length <= max * 2) return text;
    truncated = true;
    return text.slice(text.length - max);
  };
  child.stdout.on("data", (chunk: Buffer) => {
    const text = chunk.toString("utf8");
    stdout = keep(stdout + text, maxOutputChars);
    combined = keep(combined + text, 16 * 1024);
    onOutput?.(text);
  });
  child.stderr.on("data", (chunk: Buffer) => {
    const text = chunk.toString("utf8");
    combined = keep(combined + text, 16 * 1024);
    onOutput?.(text);
  });
  // An agent that ignores its stdin must not crash the worker with EPIPE.
  child.stdin.on("error", () => {});
  child.stdin.end(stdin);

  const signalAgent = (signal: NodeJS.Signals) => {
    if (child.pid === undefined) return;
    // The group, not just the shell: a grandchild holding the pipes open keeps the agent "running".
    if (signalGroup(child.pid, signal)) return;
    try {
      child.kill(signal);
    } catch {}
  };
  // The agent is done when it exits: its children must not outlive it, nor keep the run open.
  // Stopped (SIGTERM to the group), what is left of the group keeps the rest of its grace.
  let leftInGroup = false;
  let exited = false;
  let stopDeadline = 0;
  let groupSettled: Promise<void> = Promise.resolve();
  const ended = whenEnded(child, () => {
    exited = true;
    if (!stopped) leftInGroup = signalGroup(child.pid, "SIGKILL");
    else groupSettled = groupGone(child.pid, stopDeadline);
  });
  child.on("error", (error: NodeJS.ErrnoException) => {
    if (error.syscall?.startsWith("spawn")) spawnError = error;
    combined += `\n${error.message}`;
  });

  const done = new Promise<AgentResult>((resolve) => {
    void ended.then(async ({ code, signal }) => {
      await groupSettled;
      clearTimeout(killTimer);
      // Past its grace, nothing of the group is left running.
      if (stopped) signalGroup(child.pid, "SIGKILL");
      untrackGroup(pid);
      if (stdout.length > maxOutputChars) {
        truncated = true;
        stdout = stdout.slice(stdout.length - maxOutputChars);
      }
      if (combined.length > 16 * 1024) combined = combined.slice(combined.length - 16 * 1024);
      resolve({ code, signal, stdout, combined, stopped, leftInGroup, truncated, ...(spawnError ? { spawnError } : {}) });
    });
  });

  return {
    pid: child.pid,
    done,
    stop() {
      // Once it has exited by itself, its result is its own (a limit that hits during the drain does not make it "stopped").
      if (stopped || exited) return;
      stopped = true;
      signalAgent("SIGTERM");
      killTimer = setTimeout(() => signalAgent("SIGKILL"), killGraceMs);
      stopDeadline = Date.now() + killGraceMs;
    },
  };
}

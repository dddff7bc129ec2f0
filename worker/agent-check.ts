// Whether this worker can start its agent at all: the program of AGENT_COMMAND (its
// first word) or CLAUDE_BIN must exist and be executable for the agent's user. A
// worker that cannot start its agent would otherwise claim every task and fail it
// within milliseconds, though no task was at fault (worker/README.md, "When the
// worker itself is broken").
import { spawnSync } from "node:child_process";
import { agentProcessEnv, agentSpawnIdentity } from "./agent-user";
import type { WorkerConfig } from "./config";

export type AgentProgram = { program: string; setting: "AGENT_COMMAND" | "CLAUDE_BIN" };

/** Shell words that are not a program: for these the command is left to the shell. */
const SHELL_WORDS = new Set(["exec", "env", "cd", ".", "source", "eval", "if", "for", "while", "case", "{", "(", "!", "time", "nohup"]);

/**
 * The program the agent command starts: CLAUDE_BIN, or AGENT_COMMAND's first word when
 * it is a plain word (a path or a command name). null when the shell decides (an
 * assignment, a builtin, quoting or expansion): then there is nothing to check up front.
 */
export function agentProgram(config: Pick<WorkerConfig, "harness" | "agentCommand" | "claudeBin">): AgentProgram | null {
  if (config.harness === "claude") return { program: config.claudeBin, setting: "CLAUDE_BIN" };
  const first = config.agentCommand.trim().split(/\s+/)[0] ?? "";
  if (!/^[A-Za-z0-9_./+@:,-]+$/.test(first) || SHELL_WORDS.has(first) || first.includes("=")) return null;
  return { program: first, setting: "AGENT_COMMAND" };
}

// A path must be an executable file; a name must be found on PATH (a builtin or function counts as found).
const CHECK_SCRIPT = `case "$1" in
  */*) [ -f "$1" ] || { echo "no such file"; exit 1; }; [ -x "$1" ] || { echo "not executable"; exit 1; } ;;
  *) p=$(command -v -- "$1") || { echo "not found on PATH ($PATH)"; exit 1; }
     case "$p" in /*) [ -x "$p" ] || { echo "$p is not executable"; exit 1; } ;; esac ;;
esac`;

/**
 * Checks the program as the agent's user (AGENT_USER), in the agent's working directory
 * and environment. Returns null when it can be started, else why not.
 */
export function checkAgentProgram(program: string, cwd: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const result = spawnSync("/bin/sh", ["-c", CHECK_SCRIPT, "sh", program], {
    cwd,
    env: agentProcessEnv(env),
    encoding: "utf8",
    timeout: 10_000,
    ...agentSpawnIdentity(),
  });
  if (result.error) return result.error.message;
  if (result.status === 0) return null;
  return (result.stdout || result.stderr || `check exited with ${result.status}`).trim();
}

/** The start-up message for a worker whose agent cannot start (null: it can, or the shell decides). */
export function agentStartProblem(config: WorkerConfig, cwd: string): string | null {
  const found = agentProgram(config);
  if (!found) return null;
  const problem = checkAgentProgram(found.program, cwd);
  if (!problem) return null;
  const who = config.agentUser ? ` as ${config.agentUser.label}` : "";
  return `invalid worker configuration:\n  ${found.setting}: cannot run ${found.program}${who} (in ${cwd}): ${problem}. Install it or fix ${found.setting}; no task was claimed`;
}

/** A spawn error that says the program is missing or not executable (the worker's fault, not the task's). */
export function isSpawnFailure(error: NodeJS.ErrnoException | undefined): boolean {
  return !!error && ["ENOENT", "EACCES", "ENOEXEC", "EPERM", "ENOTDIR"].includes(error.code ?? "");
}

// The process groups the worker starts the agent's processes in (the agent, its start-up
// script, ./verify.sh), and the pipes it reads their output through.
import type { ChildProcess } from "node:child_process";

/** How long the pipes may stay open after the process itself exited (its last output is read by then). */
export const PIPE_DRAIN_MS = 1000;

/** Sends `signal` (0: none, only asks) to the process group `pgid` leads (a child spawned with `detached: true`); false when none is left. */
export function signalGroup(pgid: number | undefined, signal: NodeJS.Signals | 0): boolean {
  if (pgid === undefined || pgid <= 1) return false;
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Node emits a child's 'close' only once its stdout and stderr are closed too, and a
 * process it started in the background keeps them open (`server &`, a session of its
 * own): the worker would wait on it until it ended by itself. Once `child` exits,
 * `onExit` runs (stopping its group, say), and pipes still open `drainMs` later are
 * closed on the worker's side, so that 'close' follows.
 */
export function closePipesAfterExit(child: ChildProcess, onExit?: () => void, drainMs = PIPE_DRAIN_MS): void {
  child.once("exit", () => {
    onExit?.();
    const timer = setTimeout(() => {
      child.stdout?.destroy();
      child.stderr?.destroy();
    }, drainMs);
    child.once("close", () => clearTimeout(timer));
  });
}

/** Resolves once no process is left in the group `pgid`, or at `deadline` (Date.now() time) if some still are. */
export async function groupGone(pgid: number | undefined, deadline: number): Promise<void> {
  while (Date.now() < deadline && signalGroup(pgid, 0)) await new Promise((resolve) => setTimeout(resolve, 50));
}

// The process groups the worker starts the agent's processes in (the agent, its start-up
// script, ./verify.sh), and the pipes it reads their output through.
import type { ChildProcess } from "node:child_process";
import type { Socket } from "node:net";

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

/** The groups running now (an agent, a setup script, a verify.sh): a second signal kills them before the worker exits. */
const runningGroups = new Set<number>();

export function trackGroup(pgid: number | undefined): void {
  if (pgid !== undefined) runningGroups.add(pgid);
}

export function untrackGroup(pgid: number | undefined): void {
  if (pgid !== undefined) runningGroups.delete(pgid);
}

/** SIGKILL to every running group (the worker is exiting at once and must not orphan them). */
export function killTrackedGroups(): void {
  for (const pgid of runningGroups) signalGroup(pgid, "SIGKILL");
  runningGroups.clear();
}

export type Ended = { code: number | null; signal: NodeJS.Signals | null };

/**
 * When `child` is over. Node emits a child's 'close' only once its stdout and stderr
 * are closed too, and a process it started in the background keeps them open (`server
 * &`, a session of its own): the worker would wait on it until it ended by itself. So
 * this resolves at 'close', or `drainMs` after the child's exit (its last output is read
 * by then) if the pipes are still open: the worker then lets go of them, reading on and
 * dropping what comes, so that whatever holds them does not die of a write nobody
 * reads (SIGPIPE). `onExit` runs at the exit (to stop what is left of the group, say).
 */
export function whenEnded(child: ChildProcess, onExit?: () => void, drainMs = PIPE_DRAIN_MS): Promise<Ended> {
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    child.once("exit", (code, signal) => {
      onExit?.();
      timer = setTimeout(() => {
        for (const stream of [child.stdout, child.stderr]) {
          if (!stream || stream.destroyed) continue;
          stream.removeAllListeners("data");
          stream.resume();
          // Not what keeps the worker running.
          (stream as Socket).unref?.();
        }
        resolve({ code, signal });
      }, drainMs);
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal });
    });
  });
}

/** Resolves once no process is left in the group `pgid`, or at `deadline` (Date.now() time) if some still are. */
export async function groupGone(pgid: number | undefined, deadline: number): Promise<void> {
  while (Date.now() < deadline && signalGroup(pgid, 0)) await new Promise((resolve) => setTimeout(resolve, 50));
}

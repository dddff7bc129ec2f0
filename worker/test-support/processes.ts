// Whether a process a test started (or watched start) still runs, from /proc (Linux).
import { readFileSync } from "node:fs";

/** Still running: a process that has exited but is not yet reaped (state Z) is not. */
export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

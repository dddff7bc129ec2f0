// A worker killed mid-task (SIGKILL, an OOM kill, a crashed host process) cannot stop
// its agent: the agent's process group runs on, unsupervised, in the workspace the
// next worker will use. Every agent process this worker starts carries a marker in its
// environment (SWARMDECK_WORKER_RUN), recorded under WORKSPACE_DIR (mode 0600, outside
// the agent's home and checkout); the next worker on that workspace kills every process
// that still carries the old marker, and its process group, before it does anything.
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { sleep } from "./backoff";

export const RUN_VARIABLE = "SWARMDECK_WORKER_RUN";
const RECORD_FILE = "worker-run.json";

/** This worker's marker, once recorded: what startAgent (worker/agent-runner.ts) puts in every agent's environment. */
let marker: string | null = null;
export function runMarker(): string | null {
  return marker;
}

/** Field 5 of /proc/<pid>/stat, the process group; the command name before it may hold spaces and parentheses. */
function statFields(pid: number | "self"): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/** The processes whose environment carries `name=value`, with their process groups (Linux /proc). */
function processesCarrying(name: string, value: string): { pid: number; pgid: number }[] {
  const wanted = Buffer.from(`${name}=${value}\0`);
  const found: { pid: number; pgid: number }[] = [];
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return found;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const environ = readFileSync(`/proc/${entry}/environ`);
      if (!Buffer.concat([Buffer.from("\0"), environ]).includes(Buffer.concat([Buffer.from("\0"), wanted]))) continue;
      const fields = statFields(Number(entry));
      if (fields[0] === "Z") continue;
      found.push({ pid: Number(entry), pgid: Number(fields[2]) });
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

/** Kills what an earlier worker on this workspace left running; answers how many processes it found. */
export async function reapLeftoverAgents(root: string): Promise<number> {
  const text = await readFile(path.join(root, RECORD_FILE), "utf8").catch(() => null);
  if (!text) return 0;
  let old: unknown;
  try {
    old = (JSON.parse(text) as { marker?: unknown }).marker;
  } catch {
    return 0;
  }
  if (typeof old !== "string" || !/^[0-9a-f-]{36}$/.test(old)) return 0;
  let found = processesCarrying(RUN_VARIABLE, old);
  const count = found.length;
  let ownGroup = process.pid;
  try {
    ownGroup = Number(statFields("self")[2]);
  } catch {}
  for (let round = 0; found.length > 0 && round < 50; round++) {
    for (const { pid, pgid } of found) {
      // Never the worker's own group (a worker started from the agent's shell would be in it).
      if (pgid > 1 && pgid !== ownGroup) {
        try {
          process.kill(-pgid, "SIGKILL");
        } catch {}
      }
      try {
        process.kill(pid, "SIGKILL");
      } catch {}
    }
    await sleep(20);
    found = processesCarrying(RUN_VARIABLE, old);
  }
  return count;
}

/** Records this worker's marker under WORKSPACE_DIR before any agent starts. */
export async function recordWorkerRun(root: string): Promise<void> {
  const next = randomUUID();
  await writeFile(path.join(root, RECORD_FILE), `${JSON.stringify({ marker: next, pid: process.pid })}\n`, { mode: 0o600 });
  marker = next;
}

// A worker killed mid-task (SIGKILL, an OOM kill, a crashed host process) cannot stop
// its agent: the agent's process group runs on, unsupervised, in the workspace the
// next worker will use. Every process the agent controls carries a mark in its
// environment (SWARMDECK_WORKER_RUN: worker/agent-user.ts agentProcessEnv), recorded
// with the worker's pid in WORKSPACE_DIR/worker-run.json (mode 0600, outside the agent's
// home and checkout). The next worker on that workspace refuses to start while the
// recorded worker still runs (two workers would share one checkout), and otherwise kills
// every process that still carries the old mark, with its process group, before it
// does anything else.
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { sleep } from "./backoff";

export const RUN_VARIABLE = "SWARMDECK_WORKER_RUN";
/** A random mark of one ./verify.sh run (worker/git-workflow.ts): what it started outside its group is found by it. */
export const VERIFY_RUN_VARIABLE = "SWARMDECK_VERIFY_RUN";
const RECORD_FILE = "worker-run.json";

/** This worker's mark, once recorded: what agentProcessEnv (worker/agent-user.ts) puts in every agent process's environment. */
let marker: string | null = null;
export function runMarker(): string | null {
  return marker;
}

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces and parentheses): [0] state, [2] process group, [19] start time. */
function statFields(pid: number | "self"): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/** The processes whose environment carries every `name=value` of `variables`, with their process groups (Linux /proc). */
function processesCarrying(variables: Record<string, string>): { pid: number; pgid: number }[] {
  const wanted = Object.entries(variables).map(([name, value]) => Buffer.from(`\0${name}=${value}\0`));
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
      const all = Buffer.concat([Buffer.from("\0"), environ]);
      if (!wanted.every((entry) => all.includes(entry))) continue;
      const fields = statFields(Number(entry));
      if (fields[0] === "Z") continue;
      found.push({ pid: Number(entry), pgid: Number(fields[2]) });
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

/** When the process started (clock ticks since boot): with the pid, it names one process, not a reused number. */
function startTime(pid: number): string | null {
  try {
    return statFields(pid)[19] ?? null;
  } catch {
    return null;
  }
}

type RunRecord = { marker: string; pid?: number; started?: string };

async function readRecord(root: string): Promise<RunRecord | null> {
  const text = await readFile(path.join(root, RECORD_FILE), "utf8").catch(() => null);
  if (!text) return null;
  try {
    const record = JSON.parse(text) as Partial<RunRecord>;
    if (typeof record.marker !== "string" || !/^[0-9a-f-]{36}$/.test(record.marker)) return null;
    return {
      marker: record.marker,
      ...(Number.isInteger(record.pid) ? { pid: record.pid } : {}),
      ...(typeof record.started === "string" ? { started: record.started } : {}),
    };
  } catch {
    return null;
  }
}

/** The pid of another worker that recorded this workspace and still runs, if any. */
function liveWorker(record: RunRecord | null): number | null {
  if (!record?.pid || record.pid === process.pid || !record.started) return null;
  return startTime(record.pid) === record.started ? record.pid : null;
}

export type WorkspaceTakeover = { inUseBy: number } | { killed: number; survivors: number };

/**
 * Before anything touches the workspace: refuses it while the worker that recorded it
 * still runs, else kills what that worker left running. `survivors` were still there
 * after a second of SIGKILLs (not ours to kill: another user's, say).
 */
export async function takeOverWorkspace(root: string): Promise<WorkspaceTakeover> {
  const record = await readRecord(root);
  const live = liveWorker(record);
  if (live) return { inUseBy: live };
  if (!record) return { killed: 0, survivors: 0 };
  return killCarrying({ [RUN_VARIABLE]: record.marker });
}

/**
 * SIGKILL to every process carrying `variables` and to its process group, until none is
 * left (at most a second): how many went, and how many survived (not ours to kill).
 */
async function killCarrying(variables: Record<string, string>): Promise<{ killed: number; survivors: number }> {
  let found = processesCarrying(variables);
  const first = found.length;
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
    found = processesCarrying(variables);
  }
  return { killed: first - found.length, survivors: found.length };
}

/**
 * What an agent run left running after it exited, outside its process group (a
 * `setsid` or daemonized child, which its group's SIGKILL misses): every process of
 * this worker's run whose environment still carries `run`, the variables only that
 * kind of agent run gets (a task's SWARMDECK_TASK_ID, an idle run's
 * SWARMDECK_IDLE_PROPOSAL, a verify.sh run's SWARMDECK_VERIFY_RUN: worker/agent-env.ts,
 * worker/idle-proposal.ts, worker/git-workflow.ts). Nothing of it
 * may change the checkout or the start-up files while the worker commits or puts them
 * back, or run on into the next task. A service the start-up script started runs on:
 * it carries neither.
 */
export async function killRunLeftovers(run: Record<string, string>): Promise<{ killed: number; survivors: number }> {
  if (!marker) return { killed: 0, survivors: 0 };
  return killCarrying({ ...run, [RUN_VARIABLE]: marker });
}

/**
 * Records this worker (its mark, pid and start time) under WORKSPACE_DIR before any
 * agent starts; answers the pid of another worker that recorded it meanwhile, if any.
 */
export async function recordWorkerRun(root: string): Promise<number | null> {
  const live = liveWorker(await readRecord(root));
  if (live) return live;
  const next = randomUUID();
  const started = startTime(process.pid);
  const record: RunRecord = { marker: next, pid: process.pid, ...(started ? { started } : {}) };
  await writeFile(path.join(root, RECORD_FILE), `${JSON.stringify(record)}\n`, { mode: 0o600 });
  marker = next;
  return null;
}

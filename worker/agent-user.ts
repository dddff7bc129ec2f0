// OS-level separation between the worker and the agent (issue 12). The worker holds
// its token in its own environment and memory; anything running as the same OS user
// could read it from /proc/<worker pid>/environ or /proc/<pid>/mem (and as root,
// anything could). So with AGENT_USER set, a worker running as root runs everything
// the agent controls (the agent, its setup script, verify.sh, git in its checkout,
// whose hooks and config it can rewrite) as that other user, which the kernel keeps
// out of the worker's /proc entries. Every such process also gets an environment
// without the worker's credentials, separated or not.
import { execFile, execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chown, lstat, mkdir, rmdir } from "node:fs/promises";
import path from "node:path";
import { RUN_VARIABLE, runMarker } from "./leftover-agents";

export type AgentUser = { uid: number; gid: number; home: string | null; label: string };

export class AgentUserError extends Error {}

/** The worker's own credentials: never in an environment the agent's processes get. */
const WORKER_SECRETS = ["SWARMDECK_TOKEN", "SWARMDECK_CONTROL_URL", "SWARMDECK_CONTROL_SECRET"];

export function withoutWorkerSecrets(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const clean = { ...env };
  for (const key of WORKER_SECRETS) delete clean[key];
  return clean;
}

/** `AGENT_USER`: a user name from the passwd database, or a numeric `uid` / `uid:gid`. */
export function resolveAgentUser(value: string | undefined, currentUid = process.getuid?.() ?? -1): AgentUser | null {
  const spec = value?.trim();
  if (!spec) return null;
  if (currentUid !== 0) {
    throw new AgentUserError(
      `AGENT_USER=${spec} needs the worker to run as root (it runs as uid ${currentUid}); unset it or start the worker as root`,
    );
  }
  const numeric = /^(\d+)(?::(\d+))?$/.exec(spec);
  if (numeric) {
    const uid = Number(numeric[1]);
    const gid = Number(numeric[2] ?? numeric[1]);
    if (uid === 0) throw new AgentUserError("AGENT_USER must not be root (uid 0): that is no separation");
    return { uid, gid, home: null, label: `uid ${uid}` };
  }
  if (!/^[a-z_][a-z0-9_-]*\$?$/i.test(spec)) throw new AgentUserError(`AGENT_USER=${spec} is neither a user name nor a uid`);
  let entry: string;
  try {
    entry = execFileSync("getent", ["passwd", spec], { encoding: "utf8" }).trim();
  } catch {
    throw new AgentUserError(`AGENT_USER=${spec}: no such user (create it, e.g. useradd --create-home ${spec})`);
  }
  const [, , uid, gid, , home] = entry.split(":");
  if (Number(uid) === 0) throw new AgentUserError(`AGENT_USER=${spec} is root (uid 0): that is no separation`);
  return { uid: Number(uid), gid: Number(gid), home: home || null, label: `${spec} (uid ${uid})` };
}

let agentUser: AgentUser | null = null;
let osHome: string | null = null;

/** Set once at start-up (worker-loop.ts); every spawn of the agent's processes follows it. */
export function setAgentUser(user: AgentUser | null, workspaceRoot: string): void {
  agentUser = user;
  osHome = user ? (user.home ?? path.join(workspaceRoot, ".agent-os-home")) : null;
}

export function currentAgentUser(): AgentUser | null {
  return agentUser;
}

/** Spawn options for a process the agent controls: its uid and gid when separated (libuv drops the supplementary groups). */
export function agentSpawnIdentity(): { uid?: number; gid?: number } {
  return agentUser ? { uid: agentUser.uid, gid: agentUser.gid } : {};
}

/** The environment of a process the agent controls: no worker credentials; HOME of the agent's user when separated. */
export function agentProcessEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const clean = withoutWorkerSecrets(env);
  // The next worker on this workspace finds what a killed worker left running by it (worker/leftover-agents.ts).
  const marker = runMarker();
  if (marker) clean[RUN_VARIABLE] = marker;
  if (agentUser && osHome) {
    clean.HOME = osHome;
    clean.USER = clean.LOGNAME = agentUser.label.split(" ")[0];
  }
  return clean;
}

/** Gives the agent's user the folders it works in (files the worker wrote as root included). */
export async function handOver(dirs: string[]): Promise<void> {
  if (!agentUser) return;
  const targets = [...dirs, ...(osHome ? [osHome] : [])];
  if (osHome) await mkdir(osHome, { recursive: true });
  const owner = `${agentUser.uid}:${agentUser.gid}`;
  await new Promise<void>((resolve, reject) =>
    execFile("chown", ["-R", "--no-dereference", owner, ...targets], (error, _stdout, stderr) =>
      error ? reject(new AgentUserError(`chown ${owner} failed: ${stderr.trim() || error.message}`)) : resolve(),
    ),
  );
}

/**
 * Removes a tree the agent owned (WORKSPACE_DIR/project.broken). With AGENT_USER, its
 * contents go as the agent's user (with the agent's environment: no worker secrets),
 * so a link a process of the agent swaps in during the removal leads nowhere the
 * agent could not delete already; the emptied folder itself (in the worker's own
 * WORKSPACE_DIR) goes as the worker. Folders the agent made read-only are made
 * writable first. Answers null when the tree is gone, else what stood in the way.
 */
export async function removeAgentTree(dir: string): Promise<string | null> {
  const found = await lstat(dir).catch(() => null);
  if (!found) return null;
  const run = (command: string, args: string[]) =>
    new Promise<string>((resolve) =>
      execFile(command, args, { env: agentProcessEnv(process.env), ...agentSpawnIdentity() }, (_error, _stdout, stderr) =>
        resolve(String(stderr).trim()),
      ),
    );
  if (found.isDirectory()) await run("chmod", ["-R", "u+rwX", "--", dir]);
  // As the agent, rm reports the folder itself, which only the worker may unlink: what is left counts.
  const said = await run("rm", ["-rf", "--", dir]);
  await rmdir(dir).catch(() => {});
  if (!existsSync(dir)) return null;
  return said.split("\n").find((line) => !line.includes(`'${dir}'`)) || said.split("\n")[0] || "it is still there";
}

/** One file the worker wrote for the agent alone (e.g. a config holding the task's control secret). */
export async function handOverFile(file: string): Promise<void> {
  if (agentUser) await chown(file, agentUser.uid, agentUser.gid);
}

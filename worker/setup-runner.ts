// Runs the agent's start-up file (in SWARMDECK_HOME) with the interpreter its
// shebang or extension names, in the project checkout, and reports its output
// (reference 000).
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { interpreterFor } from "../lib/setup-script/startup-file";
import { agentSpawnIdentity } from "./agent-user";
import { tail } from "./log";
import { signalGroup, trackGroup, untrackGroup, whenEnded } from "./process-group";

export type SetupResult = { ok: boolean; code: number | null; output: string; durationMs: number };

export async function runSetupScript({
  homeDir,
  cwd,
  startupFile,
  env,
  timeoutMs = 10 * 60_000,
}: {
  homeDir: string;
  /** Where it runs: the project checkout (so a `npm ci` there works). */
  cwd: string;
  startupFile: string;
  env: NodeJS.ProcessEnv;
  timeoutMs?: number;
}): Promise<SetupResult> {
  const started = Date.now();
  const file = path.join(homeDir, startupFile);
  const content = await readFile(file, "utf8");
  const [command, ...args] = interpreterFor(file, content);
  let output = "";
  // The agent writes this script: it runs as the agent (worker/agent-user.ts).
  const child = spawn(command!, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true, ...agentSpawnIdentity() });
  trackGroup(child.pid);
  const collect = (chunk: Buffer) => {
    output = tail(output + chunk.toString("utf8"), 64 * 1024);
  };
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  let failedToStart: Error | null = null;
  child.on("error", (error) => {
    failedToStart = error;
  });
  const timer = setTimeout(() => {
    output += `\n[setup script timed out after ${timeoutMs} ms]`;
    signalGroup(child.pid, "SIGKILL");
  }, timeoutMs);
  // Over when the script exits: a service it started in the background runs on for the agent (worker/README.md).
  const { code } = await whenEnded(child, () => clearTimeout(timer));
  clearTimeout(timer);
  untrackGroup(child.pid);
  const durationMs = Date.now() - started;
  if (failedToStart) return { ok: false, code: null, output: `${output}${(failedToStart as Error).message}`, durationMs };
  return { ok: code === 0, code, output, durationMs };
}

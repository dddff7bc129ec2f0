// A thin promise wrapper around the git command line (the workflow owns git, the agent only writes code).
// The agent can rewrite the checkout's hooks and .git/config (which run commands), so
// git runs like the agent: as AGENT_USER when set, and never with the worker's token;
// and what a command-line setting can switch off is switched off (worker/git-config-guard.ts
// removes what it cannot from the checkout's config before each fetch and push).
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { agentProcessEnv, agentSpawnIdentity } from "./agent-user";

/**
 * `-c` settings first on every git command the worker runs: none of the checkout's
 * hooks (the project's checks are ./verify.sh, run by the verification gate), no
 * fsmonitor program, no recursion into submodules whose addresses the agent wrote,
 * no ext:: transport (it runs a command). A `-c` wins over every config file.
 */
export const WORKER_GIT_OVERRIDES: readonly string[] = [
  "core.hooksPath=/dev/null",
  "core.fsmonitor=false",
  "submodule.recurse=false",
  "fetch.recurseSubmodules=false",
  "push.recurseSubmodules=no",
  "protocol.ext.allow=never",
].flatMap((setting) => ["-c", setting]);

export type GitResult = { ok: boolean; code: number; stdout: string; stderr: string };

/**
 * A local git command (not a clone or fetch, which move a whole repository over the
 * network) that takes longer than this is killed: the checkout is the agent's, and a
 * program it got git to run on the way that never ends would hold the worker forever.
 */
export const LOCAL_GIT_TIMEOUT_MS = 10 * 60_000;

export function git(cwd: string, args: string[], env?: NodeJS.ProcessEnv): Promise<GitResult> {
  const network = ["clone", "fetch", "push", "ls-remote"].includes(args[0] ?? "");
  return new Promise((resolve) => {
    const options = {
      cwd,
      // Never a repository above cwd: a checkout whose .git an agent removed must not
      // have its resets and cleans land in whatever repository encloses the workspace.
      env: { ...agentProcessEnv(env ?? process.env), GIT_CEILING_DIRECTORIES: path.dirname(path.resolve(cwd)) },
      maxBuffer: 32 * 1024 * 1024,
      ...(network ? {} : { timeout: LOCAL_GIT_TIMEOUT_MS, killSignal: "SIGKILL" as const }),
      ...agentSpawnIdentity(),
    };
    execFile("git", [...WORKER_GIT_OVERRIDES, ...args], options, (error, stdout, stderr) => {
      const code = error ? (typeof (error as { code?: unknown }).code === "number" ? ((error as { code: number }).code as number) : 1) : 0;
      // git itself could not run (the checkout folder is gone: ENOENT for its cwd): say that, not nothing.
      const said =
        String(stderr) || (error && !String(stdout) ? `${error.message}${existsSync(cwd) ? "" : ` (${cwd} does not exist)`}` : "");
      resolve({ ok: !error, code, stdout: String(stdout), stderr: said });
    });
  });
}

/** Runs git and throws with git's own words when it fails. */
export async function gitOrThrow(cwd: string, args: string[]): Promise<string> {
  const result = await git(cwd, args);
  if (!result.ok) throw new Error(`git ${args.join(" ")} failed: ${(result.stderr || result.stdout).trim()}`);
  return result.stdout.trim();
}

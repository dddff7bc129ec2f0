// What the agent's processes get: the worker's environment minus its credentials,
// the task's files, and `swarm` on PATH (a wrapper that runs worker/cli/swarm.ts).
import { chmod, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { agentProcessEnv } from "./agent-user";

const CLI = fileURLToPath(new URL("./cli/swarm.ts", import.meta.url));

/** Writes <taskDir>/bin/swarm and returns its path. */
export async function writeSwarmBin(taskDir: string): Promise<string> {
  const bin = path.join(taskDir, "bin");
  await mkdir(bin, { recursive: true });
  const tsx = import.meta.resolve("tsx");
  const file = path.join(bin, "swarm");
  const q = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
  await writeFile(file, `#!/bin/sh\nexec ${q(process.execPath)} --no-warnings --import ${q(tsx)} ${q(CLI)} "$@"\n`);
  await chmod(file, 0o755);
  return file;
}

export function agentEnv({
  base,
  taskId,
  promptFile,
  systemPromptFile,
  workspaceDir,
  homeDir,
  swarmBin,
  control,
}: {
  base: NodeJS.ProcessEnv;
  taskId?: string;
  promptFile?: string;
  systemPromptFile?: string;
  workspaceDir: string;
  /** SWARMDECK_HOME: the agent's own files (identity, start-up script, memory/). */
  homeDir: string;
  swarmBin?: string;
  control?: { url: string; secret: string };
}): NodeJS.ProcessEnv {
  // The agent acts through the worker (control server), never with the worker's own token;
  // with AGENT_USER, HOME is that user's (worker/agent-user.ts).
  const env: NodeJS.ProcessEnv = agentProcessEnv(base);
  env.SWARMDECK_WORKSPACE = workspaceDir;
  env.SWARMDECK_HOME = homeDir;
  // Claude Code loads the CLAUDE.md of its --add-dir folders (the agent's home) only with this set.
  env.CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD = "1";
  if (taskId) env.SWARMDECK_TASK_ID = taskId;
  if (promptFile) env.SWARMDECK_PROMPT_FILE = promptFile;
  if (systemPromptFile) env.SWARMDECK_SYSTEM_PROMPT_FILE = systemPromptFile;
  if (swarmBin) env.PATH = `${path.dirname(swarmBin)}${path.delimiter}${base.PATH ?? ""}`;
  if (control) {
    env.SWARMDECK_CONTROL_URL = control.url;
    env.SWARMDECK_CONTROL_SECRET = control.secret;
  }
  return env;
}

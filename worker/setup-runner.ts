// Runs the workspace's start-up file before the agent (reference 000), with the
// interpreter its shebang or extension names, and reports its output.
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { interpreterFor } from "../lib/setup-script/startup-file";
import { tail } from "./log";

export type SetupResult = { ok: boolean; code: number | null; output: string; durationMs: number };

export async function runSetupScript({
  workspaceDir,
  startupFile,
  env,
  timeoutMs = 10 * 60_000,
}: {
  workspaceDir: string;
  startupFile: string;
  env: NodeJS.ProcessEnv;
  timeoutMs?: number;
}): Promise<SetupResult> {
  const started = Date.now();
  const content = await readFile(path.join(workspaceDir, startupFile), "utf8");
  const [command, ...args] = interpreterFor(`./${startupFile}`, content);
  return new Promise((resolve) => {
    let output = "";
    const child = spawn(command!, args, { cwd: workspaceDir, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    const collect = (chunk: Buffer) => {
      output = tail(output + chunk.toString("utf8"), 64 * 1024);
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    const timer = setTimeout(() => {
      output += `\n[setup script timed out after ${timeoutMs} ms]`;
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {}
    }, timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      resolve({ ok: false, code: null, output: `${output}${error.message}`, durationMs: Date.now() - started });
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ ok: code === 0, code, output, durationMs: Date.now() - started });
    });
  });
}

// Runs a compiled tool once, in a separate Node process the tool cannot get out of:
// - Node's permission model: it reads and writes only its own temporary folder, and
//   cannot start processes, worker threads, native addons or reach process.binding;
// - an empty environment (no worker token, no control secret, nothing else);
// - no network unless the agent's capabilities allow it (the runner closes net, tls,
//   dgram, dns, http(s), fetch and WebSocket before the tool loads; Node 20's
//   permission model has no network permission of its own);
// - limits: V8 heap, resident memory, CPU time, wall time and what it keeps in its
//   folder; the parent kills the process when one is crossed and says which;
// - with `runAs` (the worker's AGENT_USER, worker/agent-user.ts), another OS user:
//   a root worker never runs an agent's tool as root, so even a way around the
//   permission model meets the kernel's checks (no /proc of the worker, no root files).
import { spawn } from "node:child_process";
import { chmod, chown, lstat, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { RUNNER_SOURCE } from "./runner-source";

export type SandboxReason =
  | "denied" // the permission model (or the network block) refused something
  | "threw" // execute() threw
  | "load" // the module failed while loading
  | "invalid_tool" // not the tool shape
  | "invalid_input" // the input does not match inputSchema
  | "timeout" // wall-time limit
  | "cpu" // CPU-time limit
  | "memory" // heap or resident-memory limit
  | "disk" // what it wrote into its folder
  | "crashed"; // the process ended without an answer

export type ToolMeta = { name: string; description: string; inputSchema: Record<string, unknown>; timeoutMs: number | null };

export type SandboxResult = { durationMs: number; logs: string } & (
  | { ok: true; output: unknown; meta: ToolMeta }
  | { ok: false; reason: SandboxReason; error: string; meta?: ToolMeta }
);

export type SandboxLimits = {
  timeoutMs: number;
  /** CPU time; defaults to the wall time. */
  cpuMs?: number;
  /** V8 heap; resident memory may reach this plus RESIDENT_HEADROOM_MB. */
  memoryMb?: number;
  /** Bytes the tool may keep in its folder (files it writes there). */
  diskMb?: number;
  network: boolean;
};

const RESIDENT_HEADROOM_MB = 96;
const WATCH_EVERY_MS = 25;
/** The folder is measured every this many watches (a listing costs more than reading /proc). */
const DISK_EVERY = 8;
const MAX_FOLDER_ENTRIES = 10_000;
const MAX_LOG_CHARS = 16_000;

/** Node 20 spells the flag --experimental-permission; later versions --permission. */
const PERMISSION_FLAG = process.allowedNodeEnvironmentFlags.has("--permission") ? "--permission" : "--experimental-permission";

function tail(text: string): string {
  return text.length > MAX_LOG_CHARS ? `…${text.slice(-MAX_LOG_CHARS)}` : text;
}

/** Resident memory (MB) and CPU time (ms) of a process, from /proc; null where there is no /proc. */
async function usage(pid: number): Promise<{ rssMb: number; cpuMs: number } | null> {
  try {
    const [status, stat] = await Promise.all([readFile(`/proc/${pid}/status`, "utf8"), readFile(`/proc/${pid}/stat`, "utf8")]);
    const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]);
    return { rssMb: rssKb / 1024, cpuMs: (ticks * 1000) / 100 };
  } catch {
    return null;
  }
}

/** Bytes and entries under the tool's folder: its files are the only ones it can write. */
async function folderUsage(dir: string): Promise<{ bytes: number; entries: number }> {
  const entries = await readdir(dir, { recursive: true }).catch(() => [] as string[]);
  let bytes = 0;
  for (const entry of entries.slice(0, MAX_FOLDER_ENTRIES)) {
    bytes += await lstat(path.join(/*turbopackIgnore: true*/ dir, entry)).then(
      (info) => (info.isFile() ? info.size : 0),
      () => 0,
    );
  }
  return { bytes, entries: entries.length };
}

export async function runInSandbox({
  compiledCode,
  input,
  limits,
  runAs,
}: {
  compiledCode: string;
  input: unknown;
  limits: SandboxLimits;
  /** The OS user the tool runs as (needs a root parent); absent: the parent's own. */
  runAs?: { uid?: number; gid?: number };
}): Promise<SandboxResult> {
  const memoryMb = limits.memoryMb ?? 128;
  const diskMb = limits.diskMb ?? 256;
  const cpuMs = limits.cpuMs ?? limits.timeoutMs;
  const dir = await mkdtemp(path.join(tmpdir(), "swarmdeck-tool-"));
  const started = performance.now();
  try {
    await writeFile(path.join(dir, "runner.mjs"), RUNNER_SOURCE);
    await writeFile(path.join(dir, "tool.mjs"), compiledCode);
    // The input goes in a file, not on the command line: one argument holds at most 128 KiB (E2BIG beyond).
    await writeFile(
      path.join(dir, "config.json"),
      JSON.stringify({ input: input ?? {}, network: limits.network, timeoutMs: limits.timeoutMs }),
    );
    const identity = runAs?.uid !== undefined ? { uid: runAs.uid, gid: runAs.gid ?? runAs.uid } : null;
    if (identity) {
      // Its folder becomes that user's (the tool writes there); the runner and the tool stay readable only.
      await chown(dir, identity.uid, identity.gid);
      await chmod(dir, 0o700);
      for (const file of ["runner.mjs", "tool.mjs", "config.json"]) await chmod(path.join(/*turbopackIgnore: true*/ dir, file), 0o444);
    }
    const child = spawn(
      process.execPath,
      [
        PERMISSION_FLAG,
        `--allow-fs-read=${dir}/`,
        `--allow-fs-write=${dir}/`,
        `--max-old-space-size=${memoryMb}`,
        "--no-warnings",
        path.join(dir, "runner.mjs"),
      ],
      { cwd: dir, env: {} as NodeJS.ProcessEnv, stdio: ["ignore", "pipe", "pipe", "pipe"], ...(identity ?? {}) },
    );
    let logs = "";
    let answer = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      logs = tail(logs + chunk.toString("utf8"));
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      logs = tail(logs + chunk.toString("utf8"));
    });
    (child.stdio[3] as NodeJS.ReadableStream).on("data", (chunk: Buffer) => {
      answer += chunk.toString("utf8");
    });

    let stopped: { reason: SandboxReason; error: string } | null = null;
    const stop = (reason: SandboxReason, error: string) => {
      if (stopped) return;
      stopped = { reason, error };
      child.kill("SIGKILL");
    };
    const wall = setTimeout(() => stop("timeout", `time limit: stopped after ${limits.timeoutMs} ms of wall time`), limits.timeoutMs);
    let watching = false;
    let watches = 0;
    const watch = setInterval(async () => {
      if (watching || child.pid === undefined) return;
      watching = true;
      const now = await usage(child.pid);
      const folder = ++watches % DISK_EVERY === 0 ? await folderUsage(dir) : null;
      watching = false;
      if (folder && (folder.bytes > diskMb * 1024 * 1024 || folder.entries > MAX_FOLDER_ENTRIES))
        stop(
          "disk",
          `disk limit: stopped at ${Math.round(folder.bytes / 1024 / 1024)} MB in ${folder.entries} file(s) (limit ${diskMb} MB, ${MAX_FOLDER_ENTRIES} files)`,
        );
      if (!now) return;
      if (now.rssMb > memoryMb + RESIDENT_HEADROOM_MB)
        stop("memory", `memory limit: stopped at ${Math.round(now.rssMb)} MB resident (limit ${memoryMb + RESIDENT_HEADROOM_MB} MB)`);
      else if (now.cpuMs > cpuMs) stop("cpu", `CPU limit: stopped after ${Math.round(now.cpuMs)} ms of CPU time (limit ${cpuMs} ms)`);
    }, WATCH_EVERY_MS);

    const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on("close", (code, signal) => resolve({ code, signal })),
    );
    clearTimeout(wall);
    clearInterval(watch);
    const durationMs = Math.round(performance.now() - started);
    const result = stopped as { reason: SandboxReason; error: string } | null;
    if (result) return { ok: false, ...result, durationMs, logs };
    if (/heap limit|out of memory/i.test(logs)) {
      return { ok: false, reason: "memory", error: `memory limit: the tool used more than its ${memoryMb} MB heap`, durationMs, logs };
    }
    try {
      const parsed = JSON.parse(answer) as Omit<SandboxResult, "durationMs" | "logs">;
      return { ...parsed, durationMs, logs } as SandboxResult;
    } catch {
      const how = exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
      return { ok: false, reason: "crashed", error: `the tool's process ended (${how}) without an answer`, durationMs, logs };
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

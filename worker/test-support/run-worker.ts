// Starts the real worker entry point (worker/main.ts) as a child process, the way
// `npm run worker` does, and collects its log.
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "..", "..");
/** Workers of this test file still running (stopped after the file: tests/support/stop-workers.ts). */
const running = new Set<ChildProcess>();

/** `viaNpm`: through `npm run worker`, as worker/README.md starts it outside Docker. */
export function spawnWorker(env: Record<string, string>, args: string[] = ["--once"], options: { viaNpm?: boolean } = {}) {
  let log = "";
  const [command, commandArgs] = options.viaNpm
    ? ["npm", ["run", "--silent", "worker", "--", ...args]]
    : [process.execPath, ["--import", "tsx", path.join(ROOT, "worker", "main.ts"), ...args]];
  const child: ChildProcess = spawn(command, commandArgs, {
    cwd: ROOT,
    // Tests run the agent as the worker's user unless they set AGENT_USER (tests/worker-escape.test.ts
    // checks the separation, and that a root worker without AGENT_USER or this opt-out refuses to start).
    env: {
      ...process.env,
      ALLOW_AGENT_AS_ROOT: "1",
      SYNC_DEBOUNCE_MS: "50",
      HEARTBEAT_INTERVAL_MS: "200",
      POLL_WAIT_MS: "200",
      KILL_GRACE_MS: "1000",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (chunk) => {
    log += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    log += chunk;
  });
  running.add(child);
  const exited = new Promise<number | null>((resolve) =>
    child.on("close", (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  return {
    child,
    exited,
    log: () => log,
    /** Resolves once the log contains the text (or rejects after timeoutMs). */
    async waitFor(text: string | RegExp, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        if (typeof text === "string" ? log.includes(text) : text.test(log)) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`worker log never showed ${text}:\n${log}`);
    },
  };
}

/**
 * Stops the workers a test left running (it failed before it stopped them): one still
 * polling would take the next test file's pool tasks.
 */
export async function stopStrayWorkers(): Promise<void> {
  const stray = [...running];
  await Promise.all(
    stray.map(
      (child) =>
        new Promise<void>((resolve) => {
          child.once("close", () => resolve());
          child.kill("SIGKILL");
        }),
    ),
  );
}

export const FIXTURES = path.join(ROOT, "tests", "fixtures");

// A worker killed mid-task (SIGKILL: no chance to give the task back) on a server
// of its own with a short stall timeout: the task is re-queued, attempt counted.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURES, spawnWorker } from "../worker/test-support/run-worker";
import { startTestServer, type TestServer } from "./support/test-server";
import { agentWithToken, createTask, waitForTask } from "./worker-helpers";

let target: TestServer;
let dir: string;

beforeAll(async () => {
  target = await startTestServer({
    env: { SWARMDECK_STALL_TIMEOUT_MS: "1500", SWARMDECK_STALL_SWEEP_MS: "250", SWARMDECK_MAX_ATTEMPTS: "3" },
  });
  dir = mkdtempSync(path.join(tmpdir(), "swarmdeck-stall-"));
});
afterAll(async () => {
  await target?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("a worker killed mid-task", { timeout: 120_000 }, () => {
  it("gets its task re-queued after the stall timeout", async () => {
    const agent = await agentWithToken(target);
    const taskId = await createTask(target, { title: "the worker dies", agentId: agent.id });
    const pidFile = path.join(dir, "..", `${path.basename(dir)}.pid`);
    const run = spawnWorker(
      {
        SWARMDECK_URL: target.baseUrl,
        SWARMDECK_TOKEN: agent.token,
        WORKSPACE_DIR: dir,
        AGENT_COMMAND: path.join(FIXTURES, "agents", "sleep.sh"),
        AGENT_PID_FILE: pidFile,
        HEARTBEAT_INTERVAL_MS: "300",
      },
      [],
    );
    await run.waitFor("agent started");
    await waitForTask(target, taskId, (task) => task.status === "in_progress");
    run.child.kill("SIGKILL");
    await run.exited;
    // The orphaned agent is not the worker's any more; end it so the test leaves nothing behind.
    try {
      process.kill(Number(readFileSync(pidFile, "utf8")), "SIGKILL");
    } catch {}
    rmSync(pidFile, { force: true });

    const { task, events } = await waitForTask(target, taskId, (t) => t.status !== "in_progress", 20_000);
    expect(task).toMatchObject({ status: "pending", agentId: agent.id, attempts: 1 });
    expect(events.map((event: { type: string }) => event.type)).toContain("stalled");
  });
});

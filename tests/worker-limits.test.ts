import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURES, spawnWorker } from "../worker/test-support/run-worker";
import { server } from "./support/client";
import { agentWithToken, createTask, getTask, seedBareRepository, type Target, waitForTask } from "./worker-helpers";

let target: Target;
let root: string;
let origin: string;

beforeAll(() => {
  target = server();
  root = mkdtempSync(path.join(tmpdir(), "swarmdeck-limits-"));
  origin = path.join(root, "origin.git");
  seedBareRepository(origin);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Still running: a process that has exited but is not yet reaped (state Z in /proc) is not. */
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
};

describe("task limits", { timeout: 120_000 }, () => {
  it("stops a task at its own time limit and a silent agent at the no-progress limit, process groups and all", async () => {
    const [ada, bob] = [await agentWithToken(target), await agentWithToken(target)];
    const long = await createTask(target, { title: "runs too long", agentId: ada.id, timeLimitMinutes: 0.1 });
    const hung = await createTask(target, { title: "hangs", agentId: bob.id });
    const pidFiles = [path.join(root, "ada.pid"), path.join(root, "bob.pid")];
    const common = {
      SWARMDECK_URL: target.baseUrl,
      REPO_URL: origin,
      AGENT_COMMAND: path.join(FIXTURES, "agents", "busy.sh"),
      REFLECTION: "off",
      KILL_GRACE_MS: "1000",
    };
    const runs = [
      spawnWorker({ ...common, SWARMDECK_TOKEN: ada.token, WORKSPACE_DIR: path.join(root, "ada"), AGENT_CHILD_PID_FILE: pidFiles[0]! }, []),
      spawnWorker(
        {
          ...common,
          SWARMDECK_TOKEN: bob.token,
          WORKSPACE_DIR: path.join(root, "bob"),
          AGENT_CHILD_PID_FILE: pidFiles[1]!,
          BUSY_SILENT: "1",
          NO_PROGRESS_MINUTES: "0.05",
        },
        [],
      ),
    ];
    const logs = () => runs.map((run) => run.log()).join("\n");

    // While it runs, the task shows what the agent did last (carried by the heartbeats).
    const running = await waitForTask(target, long, (task) => Boolean(task.lastActivity?.startsWith("output: working, step")));
    expect(running.task).toMatchObject({ status: "in_progress", timeLimitMinutes: 0.1 });
    expect(Date.parse(running.task.lastActivityAt)).not.toBeNaN();

    const released = async (taskId: string) => {
      const { task, events } = await waitForTask(target, taskId, (t) => t.status !== "in_progress", 60_000);
      return { task, event: events.find((event: { type: string }) => event.type === "released") };
    };
    const timedOut = await released(long);
    expect(timedOut.task).toMatchObject({ status: "pending", attempts: 1 });
    expect(timedOut.event?.message, logs()).toMatch(/Given back by \S+: timed out after 0\.1 min/);
    const silent = await released(hung);
    expect(silent.task).toMatchObject({ status: "pending", attempts: 1 });
    expect(silent.event?.message, logs()).toMatch(/Given back by \S+: no progress for 0\.05 min \(last: /);

    for (const run of runs) run.child.kill("SIGTERM");
    for (const run of runs) expect(await run.exited, logs()).toBe(0);
    // The agents' own helper processes went with them: the whole process group was stopped.
    for (const file of pidFiles) expect(alive(Number(readFileSync(file, "utf8"))), file).toBe(false);
    expect((await getTask(target, long)).task.lastActivity).toBeNull();
  });
});

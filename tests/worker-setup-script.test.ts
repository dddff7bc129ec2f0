import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURES, spawnWorker } from "../worker/test-support/run-worker";
import { startTestServer, type TestServer } from "./support/test-server";
import { agentWithToken, call, createTask, getTask, seedBareRepository, setGlobalSetupScript, waitForTask } from "./worker-helpers";

let target: TestServer;
let hook: Server;
const alerts: Array<{ title: string; message: string }> = [];
let root: string;
let origin: string;

beforeAll(async () => {
  hook = createServer((req, res) => {
    let text = "";
    req.on("data", (chunk) => {
      text += chunk;
    });
    req.on("end", () => {
      alerts.push(JSON.parse(text));
      res.end("ok");
    });
  });
  await new Promise<void>((resolve) => hook.listen(0, "127.0.0.1", resolve));
  const hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/alerts`;
  target = await startTestServer({ env: { ALERT_WEBHOOK_URL: hookUrl, ALERT_WEBHOOK_FORMAT: "json" } });
  root = mkdtempSync(path.join(tmpdir(), "swarmdeck-setup-"));
  origin = path.join(root, "origin.git");
  seedBareRepository(origin);
}, 600_000);
afterAll(async () => {
  await target?.stop();
  hook?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

const agentSetup = async (agentId: string) => (await call(target, "GET", `/api/v1/agents/${agentId}`)).body.agent.setup;

async function waitFor<T>(what: string, read: () => Promise<T>, test: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (test(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what} never happened: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

describe("a broken global setup script", { timeout: 180_000 }, () => {
  it("fails no task and writes no lesson; the agents show it, an alert fires, and fixing it brings the workers back", async () => {
    await setGlobalSetupScript(target, '#!/bin/bash\necho "setup v1 ok" >> "$SWARMDECK_HOME/setup-runs.log"');
    const agents = [await agentWithToken(target), await agentWithToken(target)];
    const runs = agents.map((agent, i) =>
      spawnWorker(
        {
          SWARMDECK_URL: target.baseUrl,
          SWARMDECK_TOKEN: agent.token,
          WORKSPACE_DIR: path.join(root, `w${i}`),
          REPO_URL: origin,
          AGENT_COMMAND: path.join(FIXTURES, "agents", "git-coder.sh"),
          REFLECTION_COMMAND: path.join(FIXTURES, "agents", "reflect.sh"),
          SETUP_RECHECK_MS: "300",
        },
        [],
      ),
    );
    const logs = () => runs.map((run) => run.log()).join("\n");
    for (const agent of agents)
      await waitFor(
        "setup ok",
        () => agentSetup(agent.id),
        (setup) => setup?.status === "ok",
      );

    // One typo in the global script.
    await setGlobalSetupScript(target, '#!/bin/bash\nset -e\necho "setting up"\nripgrpe --version');
    for (const agent of agents) {
      const setup = await waitFor(
        "setup failed",
        () => agentSetup(agent.id),
        (s) => s?.status === "failed",
      );
      expect(setup.output).toMatch(/ripgrpe: command not found/);
    }
    for (const run of runs) await run.waitFor("claiming no tasks until it changes");
    const tasks = [await createTask(target, { title: "task a" }), await createTask(target, { title: "task b" })];
    // Polls that were already waiting could still take a task before the check; every later poll is held back.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    for (const taskId of tasks) expect((await getTask(target, taskId)).task.status, logs()).toBe("unassigned");
    const failedTasks = await call(target, "GET", "/api/v1/tasks?status=failed");
    expect(failedTasks.body.tasks).toEqual([]);
    for (const source of ["task_failure", "reflection"]) {
      const lessons = await call(target, "GET", `/api/v1/memories?source=${source}`);
      expect(lessons.body.memories, source).toEqual([]);
    }
    // The audit trail and the alert webhook both have it, once per agent.
    const audit = await call(target, "GET", "/api/v1/audit?action=agent.setup_failed");
    expect(audit.status, JSON.stringify(audit.body)).toBe(200);
    expect(new Set(audit.body.events.map((event: { agentId: string }) => event.agentId))).toEqual(new Set(agents.map((a) => a.id)));
    expect(alerts.filter((alert) => alert.title.includes("setup script fails"))).toHaveLength(2);
    expect(alerts[0]!.message).toContain("claims no tasks until the script changes");

    // The fix: no restart, both workers run it again and take the work.
    await setGlobalSetupScript(target, '#!/bin/bash\necho "setup v2 ok" >> "$SWARMDECK_HOME/setup-runs.log"');
    for (const taskId of tasks) await waitForTask(target, taskId, (task) => task.status === "completed", 60_000);
    for (const agent of agents) expect((await agentSetup(agent.id)).status).toBe("ok");
    for (const run of runs) run.child.kill("SIGTERM");
    for (const run of runs) expect(await run.exited, logs()).toBe(0);
    for (const i of [0, 1]) {
      expect(readFileSync(path.join(root, `w${i}`, "home", "setup-runs.log"), "utf8")).toBe("setup v1 ok\nsetup v2 ok\n");
    }
  });
});

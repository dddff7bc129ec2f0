// The app goes away while a worker finishes a task (a restart, a network cut): the
// real worker process reaches the real app through a TCP relay this test can cut.
// What the agent did must not be lost: the task's report is retried until the app
// answers (not left running, to be run a second time), and the identity edit and
// memory file the exit sync could not send are sent from the worker's next task.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnWorker } from "../worker/test-support/run-worker";
import { server } from "./support/client";
import { agentMemories, agentWithToken, createTask, getTask, identity, type Target, waitForTask } from "./worker-helpers";

let target: Target;
let relay: Awaited<ReturnType<typeof startRelay>>;
const temporary: string[] = [];

/** A TCP relay to the app; cut() drops every connection and refuses new ones until mend(). */
async function startRelay(to: URL) {
  const open = new Set<Socket>();
  let cut = false;
  const relayServer: Server = createServer((client) => {
    if (cut) {
      client.destroy();
      return;
    }
    const upstream = createConnection({ host: to.hostname, port: Number(to.port) });
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on("close", () => open.delete(socket));
      socket.on("error", () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => relayServer.listen(0, "127.0.0.1", resolve));
  const address = relayServer.address();
  if (!address || typeof address === "string") throw new Error("the relay has no port");
  return {
    url: `http://127.0.0.1:${address.port}`,
    cut() {
      cut = true;
      for (const socket of open) socket.destroy();
    },
    mend() {
      cut = false;
    },
    close: () => new Promise<void>((resolve) => relayServer.close(() => resolve())),
  };
}

beforeAll(async () => {
  target = server();
  relay = await startRelay(new URL(target.baseUrl));
});
afterAll(async () => {
  relay.mend();
  await relay.close();
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
});

const MEMORY_TEXT = "Lesson: the staging database resets at midnight.";

/**
 * A worker (not --once) whose agent, on a task asking to "write-my-notes", waits
 * until the app is cut off, then edits SOUL.md, writes memory/staging.md and exits;
 * any other task it does nothing. Answers once the worker kept the unsent edit.
 */
async function taskEndingInAnOutage(agent: { id: string; token: string }, dir: string) {
  const go = path.join(dir, "go");
  const soul = `# Soul\n\nI keep my notes short (written ${Date.now()}).\n`;
  const soulSource = path.join(dir, "new-soul.md");
  writeFileSync(soulSource, soul);
  const agentCommand = [
    'prompt="$(cat)"',
    'case "$prompt" in *write-my-notes*) ;; *) echo "nothing to do"; exit 0 ;; esac',
    `until [ -e ${JSON.stringify(go)} ]; do sleep 0.05; done`,
    `cp ${JSON.stringify(soulSource)} "$SWARMDECK_HOME/SOUL.md"`,
    `printf '%s\\n' ${JSON.stringify(MEMORY_TEXT)} > "$SWARMDECK_HOME/memory/staging.md"`,
    'echo "notes written"',
  ].join("\n");
  const worker = spawnWorker(
    { SWARMDECK_URL: relay.url, SWARMDECK_TOKEN: agent.token, WORKSPACE_DIR: dir, AGENT_COMMAND: agentCommand, REFLECTION: "false" },
    [],
  );
  const task = await createTask(target, { title: "Write my notes", description: "write-my-notes", agentId: agent.id });
  await waitForTask(target, task, (current) => current.status === "in_progress");
  await worker.waitFor("agent started (task)");
  // The app goes away; then the agent writes its edit and memory and exits.
  relay.cut();
  writeFileSync(go, "");
  await worker.waitFor("could not report the task as completed", 30_000);
  await worker.waitFor("not sent yet, kept for the next task: SOUL.md", 30_000);
  return { worker, task, soul };
}

function workspaceDir() {
  const dir = mkdtempSync(path.join(tmpdir(), "swarmdeck-outage-"));
  temporary.push(dir);
  return dir;
}

describe("a worker whose app goes away at the end of a task", () => {
  it("reports the task once the app is back, and sends the agent's unsent edit and memory from its next task", async () => {
    const agent = await agentWithToken(target, { securityProfile: "power" });
    const dir = workspaceDir();
    const { worker, task: first, soul } = await taskEndingInAnOutage(agent, dir);
    try {
      // Nothing reached the app while it was away.
      expect((await getTask(target, first)).task.status).toBe("in_progress");
      expect((await identity(target, agent.id, "soul")).content).not.toBe(soul);

      relay.mend();
      const done = await waitForTask(target, first, (task) => task.status !== "in_progress", 60_000);
      expect(done.task.status).toBe("completed");
      expect(done.task.attempts).toBe(1);
      expect(done.task.output).toContain("notes written");

      // The worker's next task sends what the first could not, before its agent runs.
      const second = await createTask(target, { title: "Anything else", description: "a plain task", agentId: agent.id });
      await waitForTask(target, second, (task) => task.status === "completed", 60_000);
      expect((await identity(target, agent.id, "soul")).content).toBe(soul);
      const stored = (await agentMemories(target, agent.id)).filter((memory) => memory.sourcePath === "memory/staging.md");
      expect(stored).toHaveLength(1);
      expect(stored[0].content).toContain(MEMORY_TEXT);
      // What the worker keeps between tasks is its own, not in the agent's home.
      expect(existsSync(path.join(dir, "sync-state.json"))).toBe(true);
      expect(existsSync(path.join(dir, "home", "sync-state.json"))).toBe(false);
    } finally {
      relay.mend();
      worker.child.kill("SIGTERM");
      await worker.exited;
    }
    // Carried over once: the second task sent it, nothing was left for a third.
    expect(worker.log().split("was not sent yet; sending it now").length - 1).toBe(1);
  }, 180_000);

  it("a workspace reused for another agent does not hand it the first agent's unsent edits", async () => {
    const first = await agentWithToken(target, { securityProfile: "power" });
    const dir = workspaceDir();
    const { worker, soul } = await taskEndingInAnOutage(first, dir);
    // The worker is gone for good (its container removed) while the app is away; the volume stays.
    worker.child.kill("SIGKILL");
    await worker.exited;
    relay.mend();

    const second = await agentWithToken(target, { securityProfile: "power" });
    const before = (await identity(target, second.id, "soul")).content;
    const task = await createTask(target, { title: "A plain task", description: "nothing special", agentId: second.id });
    const next = spawnWorker({
      SWARMDECK_URL: target.baseUrl,
      SWARMDECK_TOKEN: second.token,
      WORKSPACE_DIR: dir,
      AGENT_COMMAND: "cat > /dev/null; echo done",
      REFLECTION: "false",
    });
    expect(await next.exited, next.log()).toBe(0);
    expect((await getTask(target, task)).task.status, next.log()).toBe("completed");
    expect(next.log()).toContain("is another agent's");
    expect((await identity(target, second.id, "soul")).content).toBe(before);
    expect((await identity(target, second.id, "soul")).content).not.toBe(soul);
    const stored = await agentMemories(target, second.id);
    expect(stored.filter((memory) => memory.content.includes(MEMORY_TEXT))).toEqual([]);
  }, 180_000);
});

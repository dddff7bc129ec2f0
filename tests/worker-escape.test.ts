// Issue 12: the agent cannot get or use the worker's token. A real worker (running
// as root here, like many containers) runs a scripted agent that has read the
// worker's code and tries everything it knows: its environment, every process's
// /proc environ, cmdline and memory, the files it can reach, symlinks that make the
// worker read /proc for it, and the control server. With AGENT_USER the kernel keeps
// it out; without, the same agent finds the token, which is why a root worker refuses
// to run the agent without AGENT_USER unless told ALLOW_AGENT_AS_ROOT.
import { createHash } from "node:crypto";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURES, spawnWorker } from "../worker/test-support/run-worker";
import { server } from "./support/client";
import { openTestDb } from "./support/test-db";
import { agentWithToken, createTask, getTask, type Target } from "./worker-helpers";

const AGENT_UID = "47123";
const fingerprint = (token: string) => createHash("sha256").update(token).digest("hex");
let target: Target;
const dirs: string[] = [];

beforeAll(() => {
  target = server();
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

type Report = {
  me: { uid: number };
  workerPid: string | null;
  attempts: Array<{ what: string; outcome: string }>;
  found: string[];
  used: Array<{ status: number | string }>;
};

async function runEscape(extraEnv: Record<string, string>) {
  const agent = await agentWithToken(target, { securityProfile: "power" });
  const workspace = mkdtempSync(path.join(tmpdir(), "swarmdeck-escape-"));
  chmodSync(workspace, 0o755);
  dirs.push(workspace);
  const taskId = await createTask(target, { title: "get out", agentId: agent.id });
  const run = spawnWorker({
    SWARMDECK_URL: target.baseUrl,
    SWARMDECK_TOKEN: agent.token,
    WORKSPACE_DIR: workspace,
    AGENT_COMMAND: `${process.execPath} ${path.join(FIXTURES, "escape-agent.mjs")}`,
    REFLECTION: "off",
    ...extraEnv,
  });
  expect(await run.exited, run.log()).toBe(0);
  const { task } = await getTask(target, taskId);
  expect(task.status, `${run.log()}\n${task.failureReason}`).toBe("completed");
  const line = /ESCAPE-REPORT (.*)/.exec(task.output)?.[1];
  expect(line, task.output).toBeDefined();
  return { agent, report: JSON.parse(line!) as Report, output: task.output as string, log: run.log() };
}

async function storedAnywhere(token: string): Promise<number> {
  const db = openTestDb(target.databaseUrl);
  try {
    // lower() on both sides: SQLite's LIKE ignores ASCII case, PostgreSQL's does not.
    const like = `%${token}%`;
    const match = (column: string) => `lower("${column}") LIKE lower(?)`;
    const row = await db.get<{ n: number }>(
      `SELECT (SELECT COUNT(*) FROM "Memory" WHERE ${match("content")}) + (SELECT COUNT(*) FROM "IdentityVersion" WHERE ${match("content")})
        + (SELECT COUNT(*) FROM "IdentityProposal" WHERE ${match("proposedContent")})
        + (SELECT COUNT(*) FROM "Task" WHERE ${match("output")} OR ${match("progress")}) AS "n"`,
      [like, like, like, like, like],
    );
    return Number(row?.n);
  } finally {
    await db.close();
  }
}

describe("the agent cannot get or use the worker's token", { timeout: 180_000 }, () => {
  it(`with AGENT_USER=${AGENT_UID}: every way in fails, and nothing the agent could read back holds the token`, async () => {
    const { agent, report, output, log } = await runEscape({ AGENT_USER: AGENT_UID });
    expect(log).toContain(`the agent runs as uid ${AGENT_UID}`);
    expect(report.me.uid).toBe(Number(AGENT_UID));
    // The agent did find the worker and tried it, so the refusals below are real.
    expect(report.workerPid).not.toBeNull();
    const outcome = (what: string) => report.attempts.find((a) => a.what === what)?.outcome;
    expect(outcome(`/proc/${report.workerPid}/environ (worker)`)).toBe("EACCES");
    expect(outcome("/proc/worker/mem")).toBe("EACCES");
    expect(outcome("/proc/worker/fd")).toBe("EACCES");
    expect(outcome("/proc/worker/environ via /proc/<pid>/task")).toBe("EACCES");
    expect(outcome("symlinked USER.md and memory/ to the worker's /proc")).toBe("done");
    expect(outcome("control /proposals (guessed secret)")).toBe("401");
    expect(outcome("control /token (own secret)")).toBe("404");
    // Nothing found, nothing used, nothing stored where the agent could read it back.
    expect(report.found).not.toContain(fingerprint(agent.token));
    expect(output).not.toContain(agent.token);
    expect(report.used.every((use) => use.status === 401)).toBe(true);
    expect(await storedAnywhere(agent.token)).toBe(0);
  });

  it("a root worker without AGENT_USER refuses to run the agent and claims nothing, saying what to set", async () => {
    const agent = await agentWithToken(target);
    const taskId = await createTask(target, { title: "as root?", agentId: agent.id });
    const workspace = mkdtempSync(path.join(tmpdir(), "swarmdeck-escape-"));
    dirs.push(workspace);
    const run = spawnWorker({
      SWARMDECK_URL: target.baseUrl,
      SWARMDECK_TOKEN: agent.token,
      WORKSPACE_DIR: workspace,
      AGENT_COMMAND: `${process.execPath} ${path.join(FIXTURES, "escape-agent.mjs")}`,
      AGENT_USER: "",
      ALLOW_AGENT_AS_ROOT: "",
    });
    expect(await run.exited).toBe(2);
    expect(run.log()).toContain("the worker runs as root and AGENT_USER is not set, so the agent would run as root too");
    expect(run.log()).toContain("ALLOW_AGENT_AS_ROOT=1");
    const { task } = await getTask(target, taskId);
    expect(task.status).toBe("pending");
    expect(task.attempts).toBe(0);
  });

  it("with the explicit ALLOW_AGENT_AS_ROOT opt-out the same agent does find it (the separation is what stops it)", async () => {
    const { agent, report, log } = await runEscape({ ALLOW_AGENT_AS_ROOT: "1" });
    expect(log).toContain("the agent runs as root, like the worker");
    expect(report.found).toContain(fingerprint(agent.token));
    // Even then the worker's own reads never follow the agent's symlinks into /proc.
    expect(await storedAnywhere(agent.token)).toBe(0);
  });
});

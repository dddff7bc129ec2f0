// The worker container's entrypoint (worker/entrypoint.sh), run outside Docker (no
// engine here) against the real app and a real bare repository, as the image runs
// it (as root, with the agent as AGENT_USER): it asks the app for the agent's name,
// names the repository for the worker, seeds a writable Claude config from read-only
// credentials for the agent's user, and execs the worker. As root without AGENT_USER
// it refuses to run the agent, since the agent could then read the worker's token.
import { execFileSync, spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURES } from "../worker/test-support/run-worker";
import { server } from "./support/client";
import { agentWithToken, call, createTask, getTask, seedBareRepository, type Target } from "./worker-helpers";

const ROOT = path.resolve(import.meta.dirname, "..");
// The image's agent user (worker/Dockerfile); a bare uid here, as this machine has no such user.
const AGENT_UID = 47124;
let target: Target;
let root: string;
let bare: string;

beforeAll(() => {
  target = server();
  root = mkdtempSync(path.join(tmpdir(), "swarmdeck-entry-"));
  // The agent's user must reach its workspace and Claude config in here, as in the image.
  chmodSync(root, 0o755);
  bare = path.join(root, "repo.git");
  seedBareRepository(bare);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function runEntrypoint(env: Record<string, string>) {
  let log = "";
  // Who the agent runs as is each test's own setting, never the environment's running the tests.
  const { AGENT_USER: _user, ALLOW_AGENT_AS_ROOT: _allowed, ...inherited } = process.env;
  const child = spawn("bash", [path.join(ROOT, "worker", "entrypoint.sh"), "--once"], {
    cwd: ROOT,
    // A home of its own: the entrypoint sets git's global identity, as it does in the image.
    env: {
      ...inherited,
      PATH: `${path.join(FIXTURES, "bin")}:${process.env.PATH}`,
      HOME: path.join(root, "home"),
      POLL_WAIT_MS: "2000",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout.on("data", (chunk) => (log += chunk));
  child.stderr.on("data", (chunk) => (log += chunk));
  return { exited: new Promise<number | null>((resolve) => child.on("close", resolve)), log: () => log };
}

describe("worker/entrypoint.sh outside Docker", { timeout: 120_000 }, () => {
  it("registers, seeds Claude's config from read-only credentials, clones the mounted bare repository and runs a task as the agent's user", async () => {
    mkdirSync(path.join(root, "home"), { recursive: true });
    const credentials = path.join(root, "credentials");
    mkdirSync(credentials);
    writeFileSync(path.join(credentials, ".credentials.json"), '{"claudeAiOauth":{"accessToken":"fake"}}\n');
    chmodSync(credentials, 0o555);
    const agent = await agentWithToken(target);
    const taskId = await createTask(target, { title: "from the container", agentId: agent.id });
    const config = path.join(root, "claude-config");
    const run = runEntrypoint({
      SWARMDECK_URL: target.baseUrl,
      SWARMDECK_TOKEN: agent.token,
      WORKSPACE_DIR: path.join(root, "workspace"),
      REPO_PATH: bare,
      HARNESS: "claude",
      CLAUDE_BIN: path.join(FIXTURES, "bin", "claude"),
      CLAUDE_CONFIG_DIR: config,
      CLAUDE_CREDENTIALS_DIR: credentials,
      REFLECTION: "off",
      // As the image runs it: root (as CI runs the tests), with the agent apart.
      AGENT_USER: String(AGENT_UID),
    });
    expect(await run.exited, run.log()).toBe(0);
    // The worker registers, once: the entrypoint does not (each registration is an audit entry, and counted per hour).
    expect(run.log()).toContain(`registered as agent ${agent.name}`);
    const registrations = await call(target, "GET", `/api/v1/audit?action=worker.registered&agentId=${agent.id}`);
    expect(registrations.body.events, run.log()).toHaveLength(1);
    expect(readFileSync(path.join(config, ".credentials.json"), "utf8")).toContain("accessToken");
    const { task } = await getTask(target, taskId);
    expect(task.status, run.log()).toBe("completed");
    // The worker cloned the mounted repository beside the agent's home, and Claude kept its session in its own config.
    expect(existsSync(path.join(root, "workspace", "project", ".git"))).toBe(true);
    expect(existsSync(path.join(root, "workspace", "home", "SOUL.md"))).toBe(true);
    expect(existsSync(path.join(config, "projects"))).toBe(true);
    // The checkout commits as the agent; git's global settings are in a file every user reads and only the worker's user writes.
    const gitconfig = path.join(root, "workspace", ".gitconfig");
    const checkout = path.join(root, "workspace", "project");
    const gitEnv = { ...process.env, GIT_CONFIG_GLOBAL: gitconfig };
    expect(
      execFileSync("git", ["-c", `safe.directory=${checkout}`, "config", "user.name"], { cwd: checkout, env: gitEnv })
        .toString()
        .trim(),
    ).toBe(agent.name);
    expect(run.log()).toContain(`the agent runs as ${AGENT_UID} (uid ${AGENT_UID}), apart from the worker (root)`);
    // Claude Code ran as the agent's user: its saved session, its config and the checkout are that user's, not root's.
    const [projectFolder] = readdirSync(path.join(config, "projects"));
    const [session] = readdirSync(path.join(config, "projects", projectFolder!));
    expect(statSync(path.join(config, "projects", projectFolder!, session!)).uid).toBe(AGENT_UID);
    expect(statSync(path.join(config, ".credentials.json")).uid).toBe(AGENT_UID);
    expect(statSync(config).mode & 0o777).toBe(0o700);
    expect(statSync(path.join(root, "workspace", "project")).uid).toBe(AGENT_UID);
    expect(statSync(gitconfig).uid).toBe(0);
  });

  it("as root without AGENT_USER refuses to run the agent, saying why and what to set; the task stays pending", async () => {
    const agent = await agentWithToken(target);
    const taskId = await createTask(target, { title: "not as root", agentId: agent.id });
    const env = {
      SWARMDECK_URL: target.baseUrl,
      SWARMDECK_TOKEN: agent.token,
      WORKSPACE_DIR: path.join(root, "workspace-root"),
      AGENT_COMMAND: "cat >/dev/null; echo ran",
      HARNESS: "command",
      REFLECTION: "off",
    };
    const refused = runEntrypoint(env);
    expect(await refused.exited).toBe(1);
    expect(refused.log()).toContain(
      "running as root without AGENT_USER: the agent would run as root too and could read this worker's token",
    );
    expect(refused.log()).toContain("ALLOW_AGENT_AS_ROOT=1");
    expect((await getTask(target, taskId)).task.status).toBe("pending");
    // The explicit opt-out runs it, and says what it costs.
    const allowed = runEntrypoint({ ...env, ALLOW_AGENT_AS_ROOT: "1" });
    expect(await allowed.exited, allowed.log()).toBe(0);
    expect(allowed.log()).toContain("ALLOW_AGENT_AS_ROOT is set: the agent runs as root and can read this worker's token");
    expect((await getTask(target, taskId)).task.status).toBe("completed");
  });

  it("refuses to start without credentials, saying what to mount", async () => {
    const agent = await agentWithToken(target);
    const run = runEntrypoint({
      SWARMDECK_URL: target.baseUrl,
      SWARMDECK_TOKEN: agent.token,
      WORKSPACE_DIR: path.join(root, "workspace2"),
      HARNESS: "claude",
      CLAUDE_CONFIG_DIR: path.join(root, "empty-config"),
      CLAUDE_CREDENTIALS_DIR: path.join(root, "nowhere"),
      AGENT_USER: String(AGENT_UID),
    });
    expect(await run.exited).toBe(1);
    expect(run.log()).toContain("no Claude credentials: mount your ~/.claude read-only at");
  });
});

// What a new user gets from `npm start` (scripts/start.mjs, as package.json runs it):
// the first start seeds an admin with a generated password, printed once and kept
// in data/ (0600, in a 0700 folder) beside a generated auth secret; signing in with
// it works; a second start on the same data reuses all of it and prints no password;
// and once the app is up, the server is the only process left running.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { sessionCookie } from "./support/client";
import { createPostgresDatabase, testStore } from "./support/test-db";
import { freePort } from "./support/test-server";

const ROOT = path.resolve(import.meta.dirname, "..");
const base = mkdtempSync(path.join(tmpdir(), "swarmdeck-first-start-"));
const dataDir = path.join(base, "data");
const running: ChildProcess[] = [];
// On the PostgreSQL store (SWARMDECK_TEST_STORE) both starts share one new, empty database.
const postgres = testStore() === "postgresql" ? createPostgresDatabase() : undefined;

const SHARED_SECRETS = { NEXTAUTH_SECRET: "a".repeat(43), SWARMDECK_ENCRYPTION_KEY: "b".repeat(43) };

type Started = { baseUrl: string; output: () => string; stop: () => Promise<void> };

/** `npm start` as package.json runs it (scripts/start.mjs); `viaNpm` runs it through npm itself, as a user would. */
async function npmStart(options: { viaNpm?: boolean } = {}): Promise<Started> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOSTNAME: "127.0.0.1", SWARMDECK_DATA_DIR: dataDir };
  for (const name of [
    "DATABASE_URL",
    "NEXTAUTH_SECRET",
    "NEXTAUTH_URL",
    "SWARMDECK_ADMIN_EMAIL",
    "SWARMDECK_ADMIN_PASSWORD",
    "SWARMDECK_ADMIN_TOKEN",
    "SWARMDECK_ENCRYPTION_KEY",
  ]) {
    delete env[name];
  }
  // Same database location rule as a clone's default (data/swarmdeck.db), inside this test's folder.
  env.DATABASE_URL = postgres ? (await postgres).url : `file:${path.join(dataDir, "swarmdeck.db")}`;
  // PostgreSQL: the secrets every instance shares come from the environment (lib/env.ts).
  if (postgres) Object.assign(env, SHARED_SECRETS);
  const [command, args] = options.viaNpm ? ["npm", ["start"]] : [process.execPath, ["scripts/start.mjs"]];
  const child = spawn(command, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  running.push(child);
  let output = "";
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`npm start exited ${child.exitCode}:\n${output}`);
    const ok = await fetch(`${baseUrl}/api/health`).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) throw new Error(`npm start did not become healthy:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return {
    baseUrl,
    output: () => output,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      if (child.pid) process.kill(-child.pid, "SIGTERM");
      await exited;
    },
  };
}

const mode = (file: string) => statSync(file).mode & 0o777;

/** The processes of a process group, by command line. */
function groupCommands(pgid: number): string[] {
  const commands: string[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
      // A process that has exited but is not yet reaped (state Z) no longer runs.
      if (Number(fields[2]) === pgid && fields[0] !== "Z")
        commands.push(readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ").trim());
    } catch {
      // exited meanwhile
    }
  }
  return commands;
}

afterAll(async () => {
  for (const child of running) {
    if (child.exitCode === null && child.pid) process.kill(-child.pid, "SIGKILL");
  }
  rmSync(base, { recursive: true, force: true });
  await (await postgres)?.drop();
});

describe("npm start on a fresh clone", () => {
  it("seeds an admin with a generated password printed once and kept privately; a second start reuses everything", async () => {
    const first = await npmStart();
    // The preparation (tsx, esbuild, Prisma, the seed) ran in a child that is gone: only the server is left.
    expect(groupCommands(running.at(-1)!.pid!)).toEqual([`${process.execPath} scripts/start.mjs`]);
    const printed = /password: (\S+)/.exec(first.output())?.[1];
    expect(first.output()).toContain("First start: an admin account was created.");
    expect(first.output()).toContain("admin@swarmdeck.local");
    expect(printed).toBeTruthy();

    const passwordFile = path.join(dataDir, "admin-password.txt");
    expect(readFileSync(passwordFile, "utf8")).toContain(printed);
    expect(mode(passwordFile)).toBe(0o600);
    expect(mode(dataDir)).toBe(0o700);
    // SQLite: the session key is generated and kept privately; PostgreSQL: it is the shared one given.
    if (postgres) expect(existsSync(path.join(dataDir, "auth-secret"))).toBe(false);
    else expect(mode(path.join(dataDir, "auth-secret"))).toBe(0o600);
    const secret = postgres ? SHARED_SECRETS.NEXTAUTH_SECRET : readFileSync(path.join(dataDir, "auth-secret"), "utf8");

    const cookie = await sessionCookie("admin@swarmdeck.local", printed, first.baseUrl);
    const agents = await fetch(`${first.baseUrl}/api/v1/agents`, { headers: { cookie } });
    expect(agents.status).toBe(200);
    const created = await fetch(`${first.baseUrl}/api/v1/agents`, {
      method: "POST",
      headers: { cookie, origin: first.baseUrl, "content-type": "application/json" },
      body: JSON.stringify({ name: "kept-across-restarts" }),
    });
    expect(created.status).toBe(201);
    await first.stop();

    const second = await npmStart();
    expect(second.output()).not.toContain("First start");
    expect(second.output()).not.toContain("Building the app");
    if (postgres) {
      // Every migration is recorded as applied: the restart's `prisma migrate deploy` (the CLI asks
      // the server, scripts/launch.ts) applies nothing.
      expect(second.output()).toContain("No pending migrations to apply");
    } else {
      // Every migration is recorded as applied: the restart does not start Prisma's CLI at all.
      expect(second.output()).not.toContain("Prisma schema loaded");
    }
    if (!postgres) expect(readFileSync(path.join(dataDir, "auth-secret"), "utf8")).toBe(secret);
    const again = await sessionCookie("admin@swarmdeck.local", printed, second.baseUrl);
    const list = await fetch(`${second.baseUrl}/api/v1/agents`, { headers: { cookie: again } });
    const names = ((await list.json()) as { agents: Array<{ name: string }> }).agents.map((agent) => agent.name);
    expect(names).toContain("kept-across-restarts");
    await second.stop();
  }, 240_000);

  it("stops, server and all, when npm itself gets SIGTERM (as a terminal, systemd or a process manager sends it)", async () => {
    const started = await npmStart({ viaNpm: true });
    const npm = running.at(-1)!;
    // npm runs the server itself, with no shell in between that would die and leave the server orphaned.
    expect(groupCommands(npm.pid!).filter((command) => /node scripts\/start\.mjs$/.test(command))).toHaveLength(1);
    expect(groupCommands(npm.pid!).filter((command) => /^(\/bin\/)?sh /.test(command))).toEqual([]);
    const exited = new Promise((resolve) => npm.once("exit", resolve));
    process.kill(npm.pid!, "SIGTERM");
    await exited;
    const deadline = Date.now() + 30_000;
    while (groupCommands(npm.pid!).length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(groupCommands(npm.pid!), started.output()).toEqual([]);
    await expect(fetch(`${started.baseUrl}/api/health`)).rejects.toThrow();
  }, 240_000);

  it("stops a PostgreSQL start that lacks the secrets every instance must share, naming both and no password", () => {
    const env: NodeJS.ProcessEnv = { ...process.env, SWARMDECK_DATA_DIR: path.join(base, "no-secrets") };
    for (const name of ["NEXTAUTH_SECRET", "SWARMDECK_ENCRYPTION_KEY"]) delete env[name];
    env.DATABASE_URL = "postgresql://swarm:pw-never-printed@127.0.0.1:5432/swarmdeck";
    const result = spawnSync(process.execPath, ["scripts/start.mjs"], { cwd: ROOT, env, encoding: "utf8", timeout: 120_000 });
    expect(result.status).not.toBe(0);
    const output = `${result.stdout}${result.stderr}`;
    expect(output).toContain("NEXTAUTH_SECRET: required with a PostgreSQL DATABASE_URL");
    expect(output).toContain("SWARMDECK_ENCRYPTION_KEY: required with a PostgreSQL DATABASE_URL");
    expect(output).not.toContain("pw-never-printed");
  }, 120_000);

  it("stops at once with a clear message on a database URL it cannot serve, creating nothing and printing no password", () => {
    const scratch = mkdtempSync(path.join(base, "refused-"));
    const env: NodeJS.ProcessEnv = { ...process.env, SWARMDECK_DATA_DIR: path.join(scratch, "data") };
    env.DATABASE_URL = "mysql://swarm:s3cret-pw-123@db.internal:3306/swarm";
    const result = spawnSync(process.execPath, ["scripts/start.mjs"], {
      cwd: ROOT,
      env,
      encoding: "utf8",
      timeout: 60_000,
    });
    const output = `${result.stdout}${result.stderr}`;
    expect(result.status).toBe(1);
    expect(output).toContain('DATABASE_URL uses "mysql:"');
    expect(output).not.toContain("s3cret-pw-123");
    // Nothing was created: no data folder, and no "mysql:" folder beside package.json (a relative path once).
    expect(readdirSync(scratch)).toEqual([]);
    expect(existsSync(path.join(ROOT, "mysql:"))).toBe(false);
  });
});

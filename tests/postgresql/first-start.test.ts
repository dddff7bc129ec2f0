// Two instances started at the same moment on one empty PostgreSQL database, as
// `docker compose --profile postgresql up` does (docs/postgresql.md): each runs
// `npm start` as an operator would, so both apply migrations and seed at once.
// Both must come up serving, with the migrations applied once, one admin account
// (its generated password written by exactly one of them), one admin API token,
// and one audit chain that verifies.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuild } from "../../scripts/launch";
import { createPostgresDatabase, openTestDb } from "../support/test-db";
import { freePort } from "../support/test-server";

const ROOT = path.resolve(import.meta.dirname, "..", "..");

type Instance = { child: ChildProcess; baseUrl: string; dataDir: string };

let database: { url: string; drop(): Promise<void> };
let instances: Instance[] = [];
const adminToken = `sdo_first_${randomBytes(24).toString("base64url")}`;

async function startNpm(env: NodeJS.ProcessEnv): Promise<Instance> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), "swarmdeck-first-"));
  const child = spawn("npm", ["start", "--silent"], {
    cwd: ROOT,
    env: { ...env, PORT: String(port), HOSTNAME: "127.0.0.1", NEXTAUTH_URL: baseUrl, SWARMDECK_DATA_DIR: dataDir },
    stdio: ["ignore", "ignore", "inherit"],
    // Its own process group: stopping it stops npm and the server under it.
    detached: true,
  });
  return { child, baseUrl, dataDir };
}

async function healthy(instance: Instance, timeoutMs = 180_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (instance.child.exitCode !== null) throw new Error(`npm start exited with code ${instance.child.exitCode}`);
    try {
      const response = await fetch(`${instance.baseUrl}/api/health`);
      if (response.ok) return (await response.json()) as { database: string };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${instance.baseUrl} did not become healthy`);
}

async function stop(instance: Instance) {
  if (instance.child.exitCode === null && instance.child.signalCode === null) {
    const exited = new Promise((resolve) => instance.child.once("exit", resolve));
    try {
      process.kill(-(instance.child.pid as number), "SIGTERM");
    } catch {
      // already gone
    }
    await exited;
  }
  rmSync(instance.dataDir, { recursive: true, force: true });
}

beforeAll(async () => {
  ensureBuild();
  database = await createPostgresDatabase("swarmdeck_first");
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: database.url,
    NEXTAUTH_SECRET: randomBytes(32).toString("base64url"),
    SWARMDECK_ENCRYPTION_KEY: randomBytes(32).toString("base64url"),
    // No SWARMDECK_ADMIN_PASSWORD: the first start generates one and writes it to its data folder.
    SWARMDECK_ADMIN_EMAIL: "ops@first.local",
    SWARMDECK_ADMIN_TOKEN: adminToken,
    NEXT_TELEMETRY_DISABLED: "1",
  };
  instances = await Promise.all([startNpm(env), startNpm(env)]);
});

afterAll(async () => {
  await Promise.all(instances.map(stop));
  instances = [];
  await database?.drop();
});

describe("two instances started at once on an empty PostgreSQL database", () => {
  it("both come up serving, with one admin, one admin token, migrations applied once and one audit chain", async () => {
    const health = await Promise.all(instances.map((instance) => healthy(instance)));
    expect(health.map((answer) => answer.database)).toEqual(["postgresql", "postgresql"]);

    const sql = openTestDb(database.url);
    try {
      const users = await sql.all<{ email: string; role: string }>(`SELECT "email", "role" FROM "User"`);
      expect(users).toEqual([{ email: "ops@first.local", role: "admin" }]);
      const tokens = await sql.all<{ name: string }>(`SELECT "name" FROM "ApiToken"`);
      expect(tokens).toEqual([{ name: "SWARMDECK_ADMIN_TOKEN" }]);

      const folders = readdirSync(path.join(ROOT, "prisma", "postgresql", "migrations")).filter((name) => /^\d{14}_/.test(name));
      const applied = await sql.all<{ migration_name: string }>(
        `SELECT "migration_name" FROM "_prisma_migrations" WHERE "finished_at" IS NOT NULL AND "rolled_back_at" IS NULL ORDER BY "migration_name"`,
      );
      expect(applied.map((row) => row.migration_name)).toEqual(folders.sort());

      const created = await sql.all<{ action: string }>(`SELECT "action" FROM "AuditEvent" ORDER BY "id"`);
      expect(created.map((row) => row.action)).toEqual(["user.created", "api_token.created"]);
    } finally {
      await sql.close();
    }

    // The generated password was shown and written once, by the instance that created the admin.
    const written = instances.filter((instance) => existsSync(path.join(instance.dataDir, "admin-password.txt")));
    expect(written).toHaveLength(1);
    expect(readFileSync(path.join((written[0] as Instance).dataDir, "admin-password.txt"), "utf8")).toMatch(
      /^email: ops@first\.local\npassword: \S{12,}\n$/,
    );

    for (const instance of instances) {
      const verify = await fetch(`${instance.baseUrl}/api/v1/audit/verify`, { headers: { authorization: `Bearer ${adminToken}` } });
      expect(verify.status).toBe(200);
      expect(await verify.json()).toEqual({ ok: true, checked: 2, brokenAt: null });
    }
  });
});

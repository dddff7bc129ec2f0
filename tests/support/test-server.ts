// Starts the real app (the production server `npm start` runs, on the production build) against a fresh
// temporary database, exactly as `npm start` would, for HTTP and browser tests: a SQLite file, or a new
// database on a PostgreSQL server when SWARMDECK_TEST_STORE=postgresql (tests/support/test-db.ts).
import { type ChildProcess, spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { ensureBuild, ensureSemanticData, ensureVectorKernel, migrateDeploy, startServer } from "../../scripts/launch";
import { createPostgresDatabase, type TestStore, testStore } from "./test-db";

const ROOT = path.resolve(import.meta.dirname, "..", "..");

export type TestServer = {
  baseUrl: string;
  /** The store it serves from, and its DATABASE_URL (open it with openTestDb from test-db.ts). */
  store: TestStore;
  databaseUrl: string;
  /** The SQLite file (on the PostgreSQL store: a file that is never created). */
  dbFile: string;
  dataDir: string;
  adminEmail: string;
  adminPassword: string;
  adminToken: string;
  /** The server process's pid (its background-jobs connection is named swarmdeck-leader:<pid>). */
  pid: number;
  /** Kills the server process at once (a crash), leaving its data. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  stop(): Promise<void>;
};

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

async function waitForHealth(baseUrl: string, child: ChildProcess, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited with code ${child.exitCode}`);
    try {
      const response = await fetch(`${baseUrl}/api/health`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`the server did not become healthy within ${timeoutMs} ms`);
}

function sharedSecrets(databaseUrl: string) {
  const derive = (purpose: string) => createHash("sha256").update(`swarmdeck-test:${purpose}:${databaseUrl}`).digest("base64url");
  return { NEXTAUTH_SECRET: derive("auth"), SWARMDECK_ENCRYPTION_KEY: derive("encryption") };
}

/**
 * Options: `env` is added to the server's environment; `dataDir` reuses a data
 * folder (a restart on the same database) and `keepData` leaves it on stop.
 */
export async function startTestServer(
  options: { env?: Record<string, string>; quiet?: boolean; dataDir?: string; keepData?: boolean; databaseUrl?: string } = {},
): Promise<TestServer> {
  ensureSemanticData();
  ensureVectorKernel();
  ensureBuild();
  const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), "swarmdeck-test-"));
  const dbFile = path.join(dataDir, "test.db");
  const store = options.databaseUrl ? (options.databaseUrl.startsWith("file:") ? "sqlite" : "postgresql") : testStore();
  // A restart on the same data (options.databaseUrl given) keeps its database; a new one is dropped on stop.
  const created = !options.databaseUrl && store === "postgresql" ? await createPostgresDatabase() : undefined;
  const databaseUrl = options.databaseUrl ?? created?.url ?? `file:${dbFile}`;
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const adminEmail = "admin@test.local";
  const adminPassword = "correct-horse-battery";
  const adminToken = `sdo_test_${randomBytes(24).toString("base64url")}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    DATABASE_URL: databaseUrl,
    SWARMDECK_DATA_DIR: dataDir,
    NEXTAUTH_URL: baseUrl,
    NEXTAUTH_SECRET: randomBytes(32).toString("base64url"),
    SWARMDECK_ADMIN_EMAIL: adminEmail,
    SWARMDECK_ADMIN_PASSWORD: adminPassword,
    SWARMDECK_ADMIN_TOKEN: adminToken,
    NEXT_TELEMETRY_DISABLED: "1",
    // Every instance on one PostgreSQL database shares these (lib/env.ts): derived from its URL.
    ...(store === "postgresql" ? sharedSecrets(databaseUrl) : {}),
    ...options.env,
  };
  migrateDeploy(env);
  const seeded = spawnSync(process.execPath, ["--conditions=react-server", "--import", "tsx", "prisma/seed.ts"], {
    cwd: ROOT,
    env,
    encoding: "utf8",
  });
  if (seeded.status !== 0) throw new Error(`seeding failed: ${seeded.stderr}`);

  const child = startServer("start", { port, hostname: "127.0.0.1", env, stdio: options.quiet === false ? "inherit" : "quiet" });
  await waitForHealth(baseUrl, child);
  return {
    baseUrl,
    store,
    databaseUrl,
    dbFile,
    dataDir,
    adminEmail,
    adminPassword,
    adminToken,
    pid: child.pid ?? 0,
    async kill(signal = "SIGKILL") {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill(signal);
      await exited;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await exited;
      }
      if (!options.keepData) {
        rmSync(dataDir, { recursive: true, force: true });
        await created?.drop();
      }
    },
  };
}

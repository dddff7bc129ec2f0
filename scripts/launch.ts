// The steps `npm start` (and the test harnesses) take before serving: keep the
// secrets, build when the build is missing or stale, apply migrations, seed.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { databaseTarget } from "../lib/config/database-url";
import { authSecret, ensurePrivateDataDir } from "../lib/config/secrets";

const ROOT = path.resolve(import.meta.dirname, "..");
const BIN = {
  next: path.join(ROOT, "node_modules", "next", "dist", "bin", "next"),
  serve: path.join(ROOT, "scripts", "serve.mjs"),
  prisma: path.join(ROOT, "node_modules", "prisma", "build", "index.js"),
};
const FINGERPRINT_FILE = path.join(ROOT, ".next", "swarmdeck-source-fingerprint");
const SOURCE_DIRS = ["app", "components", "lib", "public", "types", "prisma/schema.prisma"];
// Root files count too (next.config.ts, proxy.ts, instrumentation.ts, package.json, ...).
const ROOT_FILE = /\.(ts|tsx|mjs|js|json)$/;
const GENERATED_ROOT_FILES = new Set(["package-lock.json", "next-env.d.ts"]);
const SKIP = new Set(["node_modules", "generated", "monaco", ".next"]);

function walk(entry: string, hash: ReturnType<typeof createHash>) {
  const full = path.join(ROOT, entry);
  if (!existsSync(full)) return;
  const stat = statSync(full);
  if (stat.isDirectory()) {
    for (const child of readdirSync(full).sort()) {
      if (!SKIP.has(child) && !child.endsWith(".test.ts")) walk(path.join(entry, child), hash);
    }
  } else {
    hash.update(`${entry}\0${stat.size}\0${stat.mtimeMs}\n`);
  }
}

/** Changes whenever a file the production build depends on changes. */
export function sourceFingerprint(): string {
  const hash = createHash("sha256");
  const rootFiles = readdirSync(ROOT).filter(
    (name) => ROOT_FILE.test(name) && !GENERATED_ROOT_FILES.has(name) && statSync(path.join(ROOT, name)).isFile(),
  );
  for (const entry of [...SOURCE_DIRS, ...rootFiles.sort()]) walk(entry, hash);
  return hash.digest("hex");
}

function run(label: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  const result = spawnSync(process.execPath, args, { cwd: ROOT, env, stdio: "inherit" });
  if (result.status !== 0) throw new Error(`${label} failed (exit ${result.status ?? result.signal})`);
}

export function ensureBuild(log = console.log): void {
  const fingerprint = sourceFingerprint();
  const built =
    existsSync(path.join(ROOT, ".next", "BUILD_ID")) &&
    existsSync(FINGERPRINT_FILE) &&
    readFileSync(FINGERPRINT_FILE, "utf8") === fingerprint;
  if (built) return;
  log("Building the app (first start, or the sources changed) ...");
  run("next build", [BIN.next, "build"], { ...process.env, NEXT_TELEMETRY_DISABLED: "1" });
  // Taken again after the build: whatever the build itself touched must not count as a change.
  writeFileSync(FINGERPRINT_FILE, sourceFingerprint());
}

/**
 * The embedded semantic default's data (word vectors, synonyms), normally built
 * at install by postinstall; built here when an install skipped scripts.
 */
export function ensureSemanticData(log = console.log): void {
  const files = ["word-vectors.bin", "synonyms.txt"].map((name) => path.join(ROOT, "lib", "generated", name));
  if (files.every((file) => existsSync(file))) return;
  log("Converting the word vectors and WordNet synonyms for memory search (once) ...");
  run("build-semantic-data", [path.join(ROOT, "scripts", "build-semantic-data.mjs")]);
}

/**
 * The vector index's WebAssembly scans (lib/generated/vector-kernel.wasm), normally
 * compiled at install by postinstall; compiled here when an install skipped scripts.
 */
export function ensureVectorKernel(log = console.log): void {
  const wasm = path.join(ROOT, "lib", "generated", "vector-kernel.wasm");
  // Older than its source (a pull that changed it, with no install since): compiled again.
  if (existsSync(wasm) && statSync(wasm).mtimeMs >= statSync(path.join(ROOT, "lib", "memory", "vector-kernel.wat")).mtimeMs) return;
  log("Compiling the vector index's scans ...");
  run("build-vector-kernel", [path.join(ROOT, "scripts", "build-vector-kernel.mjs")]);
}

/**
 * True when the database already records every migration folder as applied: then
 * `prisma migrate deploy` has nothing to do, and a restart skips its CLI (a
 * second or more of start-up). Any doubt (no file yet, no table, a failed or
 * missing migration) answers false and the CLI runs as before.
 */
function migrationsApplied(env: NodeJS.ProcessEnv): boolean {
  try {
    const target = databaseTarget(env.DATABASE_URL);
    // PostgreSQL: the CLI asks the server (a second at most).
    if (target.kind !== "sqlite") return false;
    const file = target.file;
    if (!existsSync(file)) return false;
    const folders = readdirSync(path.join(ROOT, "prisma", "migrations")).filter((name) => /^\d{14}_/.test(name));
    const sqlite = new Database(file, { readonly: true, fileMustExist: true });
    try {
      const applied = new Set(
        (
          sqlite
            .prepare("SELECT migration_name AS name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL")
            .all() as { name: string }[]
        ).map((row) => row.name),
      );
      return folders.every((name) => applied.has(name));
    } finally {
      sqlite.close();
    }
  } catch {
    return false;
  }
}

export function migrateDeploy(env: NodeJS.ProcessEnv = process.env): void {
  if (migrationsApplied(env)) return;
  run("prisma migrate deploy", [BIN.prisma, "migrate", "deploy"], { ...env, CHECKPOINT_DISABLE: "1" });
}

/** Puts the generated-or-given auth secret into the environment the server inherits. */
export function prepareSecrets(): void {
  ensurePrivateDataDir();
  process.env.NEXTAUTH_SECRET = authSecret();
}

/**
 * The server: in production scripts/serve.mjs (Next.js plus the fast path),
 * in development `next dev` (every route through Next, hot reloading).
 */
export function startServer(
  mode: "start" | "dev",
  options: { port: number; hostname?: string; env?: NodeJS.ProcessEnv; stdio?: "inherit" | "quiet" },
): ChildProcess {
  const args = [...(mode === "start" ? [BIN.serve] : [BIN.next, "dev"]), "--port", String(options.port)];
  if (options.hostname) args.push("--hostname", options.hostname);
  return spawn(process.execPath, args, {
    cwd: ROOT,
    env: { NEXT_TELEMETRY_DISABLED: "1", ...(options.env ?? process.env) },
    // quiet: only errors (the test harnesses)
    stdio: options.stdio === "quiet" ? ["ignore", "ignore", "inherit"] : "inherit",
  });
}

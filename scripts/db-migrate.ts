// `npm run db:migrate -- <name>`: writes a new migration for what changed in
// prisma/schema.prisma, then applies it. Stands in for `prisma migrate dev`,
// whose --create-only mode is broken on the offline JS engine (SETUP-NOTES.md).
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { migrateDeploy } from "./launch";

const ROOT = path.resolve(import.meta.dirname, "..");
const PRISMA = path.join(ROOT, "node_modules", "prisma", "build", "index.js");

// Tables the migrations create in raw SQL (FTS5 and its shadow tables) are not
// in schema.prisma; the diff would drop them, so their blocks are left out.
const RAW_TABLE = /"[A-Za-z0-9]*_fts(?:_[a-z]+)?"/;

function withoutRawTables(sql: string): string {
  return sql
    .split(/\n(?=-- )/)
    .filter((block) => !RAW_TABLE.test(block))
    .join("\n");
}

const name =
  (process.argv[2] ?? "change")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "") || "change";
const work = mkdtempSync(path.join(tmpdir(), "swarmdeck-migration-"));
const draft = path.join(work, "migration.sql");
try {
  const diff = spawnSync(
    process.execPath,
    [
      PRISMA,
      "migrate",
      "diff",
      "--from-migrations",
      "prisma/migrations",
      "--to-schema-datamodel",
      "prisma/schema.prisma",
      "--script",
      "-o",
      draft,
    ],
    { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"], env: { ...process.env, CHECKPOINT_DISABLE: "1" } },
  );
  if (diff.status !== 0) throw new Error(`prisma migrate diff failed (exit ${diff.status})`);
  const sql = withoutRawTables(readFileSync(draft, "utf8"));
  if (!/\b(CREATE|ALTER|DROP|INSERT|UPDATE|DELETE|PRAGMA)\b/i.test(sql)) {
    console.log("The schema matches the migrations: nothing to write.");
  } else {
    writeFileSync(draft, sql);
    const stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
    const folder = path.join(ROOT, "prisma", "migrations", `${stamp}_${name}`);
    mkdirSync(folder, { recursive: true });
    renameSync(draft, path.join(folder, "migration.sql"));
    console.log(`Wrote ${path.relative(ROOT, folder)}/migration.sql`);
  }
  migrateDeploy();
} finally {
  rmSync(work, { recursive: true, force: true });
}

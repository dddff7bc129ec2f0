// `npm run db:migrate -- <name>`: writes a new migration from the difference
// between prisma/migrations and prisma/schema.prisma, then applies it.
// (Prisma's `migrate dev --create-only` is broken with the JS engine.)
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "..");
const PRISMA = path.join(ROOT, "node_modules", "prisma", "build", "index.js");
const name = (process.argv[2] ?? "").trim();

if (!/^[a-z0-9_]+$/.test(name)) {
  console.error("Usage: npm run db:migrate -- <name>   (lower-case letters, digits and underscores)");
  process.exit(2);
}

const diff = spawnSync(
  process.execPath,
  [PRISMA, "migrate", "diff", "--from-migrations", "prisma/migrations", "--to-schema-datamodel", "prisma/schema.prisma", "--script"],
  { cwd: ROOT, encoding: "utf8", env: { ...process.env, CHECKPOINT_DISABLE: "1" } },
);
if (diff.status !== 0) {
  console.error(diff.stderr);
  process.exit(diff.status ?? 1);
}

// The FTS5 index is created by hand in the init migration; Prisma sees its tables
// as drift and would drop them. Prisma writes one block per change (a comment line,
// then its statements), so keep every block that does not touch them.
const blocks = diff.stdout
  .split(/\n\s*\n/)
  .map((block) => block.trim())
  .filter((block) => block && !/memory_fts/i.test(block));
const meaningful = blocks.some((block) =>
  block.split("\n").some((line) => line.trim() && !line.trim().startsWith("--") && !/^PRAGMA foreign_keys=(on|off);$/i.test(line.trim())),
);
const sql = meaningful ? `${blocks.join("\n\n")}\n` : "";

if (!sql) {
  console.log("The schema matches the migrations: nothing to do.");
  process.exit(0);
}

const stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
const dir = path.join(ROOT, "prisma", "migrations", `${stamp}_${name}`);
mkdirSync(dir, { recursive: true });
writeFileSync(path.join(dir, "migration.sql"), sql);
console.log(`Wrote ${path.relative(ROOT, dir)}/migration.sql`);

const deploy = spawnSync(process.execPath, [PRISMA, "migrate", "deploy"], {
  cwd: ROOT,
  stdio: "inherit",
  env: { ...process.env, CHECKPOINT_DISABLE: "1" },
});
process.exit(deploy.status ?? 1);

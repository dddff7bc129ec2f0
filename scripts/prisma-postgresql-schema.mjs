// Writes prisma/postgresql/schema.prisma from prisma/schema.prisma: the same
// models for the PostgreSQL store, with its own generated client
// (lib/generated/prisma-pg) and every DateTime as timestamptz(3), so raw SQL can
// compare times with JavaScript Dates whatever the server's time zone.
// `node scripts/prisma-postgresql-schema.mjs` rewrites it; `--check` exits 1 when
// the committed file is stale (lib/config/postgresql-schema.test.ts runs it).
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "..");
const SOURCE = path.join(ROOT, "prisma", "schema.prisma");
export const TARGET = path.join(ROOT, "prisma", "postgresql", "schema.prisma");

export function postgresqlSchema(source) {
  const header =
    "// GENERATED from prisma/schema.prisma by scripts/prisma-postgresql-schema.mjs: edit that file,\n" +
    "// then run `node scripts/prisma-postgresql-schema.mjs` and write a migration in\n" +
    "// prisma/postgresql/migrations (docs/postgresql.md says how).\n\n";
  const body = source
    .replace('output     = "../lib/generated/prisma"', 'output     = "../../lib/generated/prisma-pg"')
    .replace('provider = "sqlite"', 'provider = "postgresql"')
    .replace('url      = "file:./data/swarmdeck.db"', 'url      = "postgresql://localhost/swarmdeck"')
    .replace(/^(\s+\w+\s+DateTime\??)([^/\n]*?)(\s*\/\/.*)?$/gm, (_line, field, attributes, comment = "") => {
      return `${field}${attributes.replace(/\s*$/, "")} @db.Timestamptz(3)${comment}`;
    });
  if (!body.includes('provider = "postgresql"') || !body.includes("prisma-pg")) {
    throw new Error("prisma/schema.prisma no longer has the generator and datasource lines this script rewrites");
  }
  return header + body;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const next = postgresqlSchema(readFileSync(SOURCE, "utf8"));
  if (process.argv.includes("--check")) {
    let current = "";
    try {
      current = readFileSync(TARGET, "utf8");
    } catch {}
    if (current !== next) {
      console.error("prisma/postgresql/schema.prisma is stale: run node scripts/prisma-postgresql-schema.mjs");
      process.exit(1);
    }
  } else {
    writeFileSync(TARGET, next);
  }
}

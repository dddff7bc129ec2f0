// `npm run db:copy -- --to postgresql://user:password@host/db [--from file:./data/swarmdeck.db]`
// Copies a SQLite database into an empty PostgreSQL database (moving a deployment
// from the embedded store to PostgreSQL; docs/postgresql.md). It migrates the target,
// refuses one that already holds rows, copies every table in one transaction
// (all or nothing), sets the id sequences, then verifies: every table's row count
// and a digest of every row equal on both sides, and the audit chain verifies on
// the copy. Stop the app first: the copy reads the SQLite file as it is.
import { createHash } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import pg from "pg";
import { auditHash, GENESIS_HASH } from "../lib/audit/audit-log";
import { databaseTarget, dataDir, redactedDatabaseUrl } from "../lib/config/database-url";
import { migrateDeploy } from "./launch";

type Column = { name: string; type: string; nullable: boolean };
type Table = { name: string; columns: Column[]; serial: string | null };
type ForeignKey = { table: string; column: string; references: string };

const BATCH_ROWS = 500;

function fail(message: string): never {
  console.error(`db:copy: ${message}`);
  process.exit(1);
}

const { values } = parseArgs({ options: { from: { type: "string" }, to: { type: "string" } } });
const source = databaseTarget(values.from ?? process.env.DATABASE_URL);
if (source.kind !== "sqlite") fail("--from must be a SQLite database (file:/path/to/swarmdeck.db), the default is ./data/swarmdeck.db");
if (!values.to) fail("--to postgresql://user:password@host:5432/database is required");
const target = databaseTarget(values.to);
if (target.kind !== "postgresql") fail("--to must be a postgresql:// URL");
if (!existsSync(source.file)) fail(`no SQLite database at ${source.file}`);

const sqlite = new Database(source.file, { readonly: true, fileMustExist: true });
sqlite.defaultSafeIntegers(false);

// The source must be fully migrated: its tables then match the target's.
const folders = readdirSync(path.resolve(import.meta.dirname, "..", "prisma", "migrations")).filter((name) => /^\d{14}_/.test(name));
const applied = new Set(
  (
    sqlite
      .prepare("SELECT migration_name AS name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL")
      .all() as {
      name: string;
    }[]
  ).map((row) => row.name),
);
const missing = folders.filter((name) => !applied.has(name));
if (missing.length > 0)
  fail(`the SQLite database lacks migrations (${missing.join(", ")}): start this version on it once (npm start), then copy`);

console.log(`Copying ${source.file} into ${redactedDatabaseUrl(target.url)}`);
migrateDeploy({ ...process.env, DATABASE_URL: target.url });

const client = new pg.Client({ connectionString: target.url });
await client.connect();

async function tables(): Promise<Table[]> {
  const { rows } = await client.query<{ table_name: string; column_name: string; data_type: string; is_nullable: string; serial: boolean }>(
    `SELECT c.table_name, c.column_name, c.data_type, c.is_nullable, (c.column_default LIKE 'nextval(%') AS serial
     FROM information_schema.columns c JOIN information_schema.tables t ON t.table_name = c.table_name AND t.table_schema = c.table_schema
     WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE' AND c.table_name <> '_prisma_migrations' AND c.is_generated = 'NEVER'
     ORDER BY c.table_name, c.ordinal_position`,
  );
  const byName = new Map<string, Table>();
  for (const row of rows) {
    const table = byName.get(row.table_name) ?? { name: row.table_name, columns: [], serial: null };
    table.columns.push({ name: row.column_name, type: row.data_type, nullable: row.is_nullable === "YES" });
    if (row.serial) table.serial = row.column_name;
    byName.set(row.table_name, table);
  }
  return [...byName.values()];
}

async function foreignKeys(): Promise<ForeignKey[]> {
  const { rows } = await client.query<ForeignKey>(
    `SELECT cl.relname AS "table", a.attname AS "column", ref.relname AS "references"
     FROM pg_constraint c
     JOIN pg_class cl ON cl.oid = c.conrelid JOIN pg_class ref ON ref.oid = c.confrelid
     JOIN pg_namespace n ON n.oid = cl.relnamespace
     JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY (c.conkey)
     WHERE c.contype = 'f' AND n.nspname = 'public'`,
  );
  return rows;
}

/**
 * Tables in an order where every row's references exist when it is inserted. A
 * reference inside a cycle (a task's parent task) is inserted as NULL and set
 * afterwards ("deferred").
 */
function insertionOrder(all: Table[], keys: ForeignKey[]): { order: Table[]; deferred: ForeignKey[] } {
  const left = new Map(all.map((table) => [table.name, table]));
  const order: Table[] = [];
  const deferred: ForeignKey[] = [];
  while (left.size > 0) {
    const ready = [...left.values()].filter((table) =>
      keys.every((key) => key.table !== table.name || !left.has(key.references) || deferred.includes(key)),
    );
    if (ready.length === 0) {
      const cyclic = keys.find(
        (key) =>
          left.has(key.table) &&
          left.has(key.references) &&
          !deferred.includes(key) &&
          left.get(key.table)?.columns.find((c) => c.name === key.column)?.nullable,
      );
      if (!cyclic) fail(`cannot order the tables ${[...left.keys()].join(", ")}: a cycle of required references`);
      deferred.push(cyclic);
      continue;
    }
    for (const table of ready.sort((a, b) => a.name.localeCompare(b.name))) {
      order.push(table);
      left.delete(table.name);
    }
  }
  return { order, deferred };
}

/** A SQLite value as the PostgreSQL column takes it. */
function convert(value: unknown, column: Column): unknown {
  if (value === null || value === undefined) return null;
  switch (column.type) {
    case "timestamp with time zone":
    case "timestamp without time zone":
      return new Date(typeof value === "number" ? value : Number.isFinite(Number(value)) ? Number(value) : Date.parse(String(value)));
    case "boolean":
      return value === 1 || value === true || value === "1" || value === "true";
    case "bytea":
      return Buffer.isBuffer(value) ? value : Buffer.from(value as Uint8Array);
    default:
      return value;
  }
}

/** One row in a form both stores agree on, for the digests. */
function canonical(value: unknown, column: Column): unknown {
  if (value === null || value === undefined) return null;
  if (column.type.startsWith("timestamp")) return value instanceof Date ? value.getTime() : Number(value);
  if (column.type === "boolean") return value === true || value === 1 ? 1 : 0;
  if (column.type === "bytea") return Buffer.from(value as Uint8Array).toString("hex");
  if (typeof value === "bigint") return Number(value);
  return value;
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

// Tables only the PostgreSQL store has (its change log, shared counters) start empty
// and fill themselves (triggers on the copied rows); the copy leaves them alone.
const inSqlite = new Set(
  (sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((row) => row.name),
);
const everything = await tables();
const all = everything.filter((table) => inSqlite.has(table.name));
const { order, deferred } = insertionOrder(
  all,
  (await foreignKeys()).filter((key) => inSqlite.has(key.table) && inSqlite.has(key.references)),
);

const occupied: string[] = [];
for (const table of order) {
  const { rows } = await client.query<{ any: boolean }>(`SELECT EXISTS (SELECT 1 FROM ${quote(table.name)}) AS any`);
  if (rows[0]?.any) occupied.push(table.name);
}
if (occupied.length > 0) {
  await client.end();
  fail(`the PostgreSQL database is not empty (${occupied.join(", ")} hold rows): copy into a new, empty database`);
}

const started = Date.now();
const counts = new Map<string, number>();
await client.query("BEGIN");
try {
  for (const table of order) {
    const sourceColumns = new Set(
      (sqlite.prepare(`PRAGMA table_info(${quote(table.name)})`).all() as { name: string }[]).map((c) => c.name),
    );
    const columns = table.columns.filter((column) => sourceColumns.has(column.name));
    const later = deferred.filter((key) => key.table === table.name).map((key) => key.column);
    let copied = 0;
    let batch: unknown[][] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      const params: unknown[] = [];
      const tuples = batch.map((row) => `(${row.map((value) => `$${params.push(value)}`).join(", ")})`);
      await client.query(
        `INSERT INTO ${quote(table.name)} (${columns.map((c) => quote(c.name)).join(", ")}) VALUES ${tuples.join(", ")}`,
        params,
      );
      copied += batch.length;
      batch = [];
    };
    const rows = sqlite
      .prepare(`SELECT ${columns.map((c) => quote(c.name)).join(", ")} FROM ${quote(table.name)}`)
      .raw()
      .iterate() as Iterable<unknown[]>;
    for (const row of rows) {
      batch.push(row.map((value, i) => (later.includes((columns[i] as Column).name) ? null : convert(value, columns[i] as Column))));
      // PostgreSQL takes at most 65,535 parameters a statement.
      if (batch.length >= BATCH_ROWS || (batch.length + 1) * columns.length > 30_000) await flush();
    }
    await flush();
    counts.set(table.name, copied);
    if (table.serial) {
      await client.query(
        `SELECT setval(pg_get_serial_sequence($1, $2), COALESCE(MAX(${quote(table.serial)}), 1), MAX(${quote(table.serial)}) IS NOT NULL) FROM ${quote(table.name)}`,
        [quote(table.name), table.serial],
      );
    }
    console.log(`  ${table.name}: ${copied} rows`);
  }
  for (const key of deferred) {
    const table = all.find((t) => t.name === key.table) as Table;
    const idColumn = table.columns.find((c) => c.name === "id") ? "id" : fail(`${key.table} has no id column to set ${key.column} by`);
    const rows = sqlite
      .prepare(
        `SELECT ${quote(idColumn)} AS id, ${quote(key.column)} AS ref FROM ${quote(key.table)} WHERE ${quote(key.column)} IS NOT NULL`,
      )
      .all() as { id: unknown; ref: unknown }[];
    for (const row of rows) {
      await client.query(`UPDATE ${quote(key.table)} SET ${quote(key.column)} = $1 WHERE ${quote(idColumn)} = $2`, [row.ref, row.id]);
    }
  }
  // The audit chain's head (a table only PostgreSQL has) stands where the copied chain ends.
  await client.query(
    `UPDATE "AuditChainHead" SET "prevHash" = '', "hash" = COALESCE((SELECT "hash" FROM "AuditEvent" ORDER BY "id" DESC LIMIT 1), $1) WHERE "id" = 1`,
    ["0".repeat(64)],
  );
  await client.query("COMMIT");
} catch (error) {
  await client.query("ROLLBACK").catch(() => {});
  await client.end();
  fail(`the copy failed and was rolled back, the target is unchanged: ${(error as Error).message}`);
}

// Verification: counts and a digest of every row, table by table, on both sides.
const mismatches: string[] = [];
for (const table of order) {
  const columns = table.columns;
  const sourceColumns = new Set((sqlite.prepare(`PRAGMA table_info(${quote(table.name)})`).all() as { name: string }[]).map((c) => c.name));
  const shared = columns.filter((column) => sourceColumns.has(column.name));
  const key = shared.find((c) => c.name === "id") ? ["id"] : shared.map((c) => c.name);
  const orderBy = key.map(quote).join(", ");
  const list = shared.map((c) => quote(c.name)).join(", ");
  const digest = (rows: Iterable<unknown[]>) => {
    const hash = createHash("sha256");
    let n = 0;
    for (const row of rows) {
      hash.update(JSON.stringify(row.map((value, i) => canonical(value, shared[i] as Column))));
      n += 1;
    }
    return { n, hex: hash.digest("hex") };
  };
  const mine = digest(
    sqlite
      .prepare(`SELECT ${list} FROM ${quote(table.name)} ORDER BY ${orderBy}`)
      .raw()
      .iterate() as Iterable<unknown[]>,
  );
  const theirs = digest(
    (await client.query({ text: `SELECT ${list} FROM ${quote(table.name)} ORDER BY ${orderBy}`, rowMode: "array" })).rows as unknown[][],
  );
  if (mine.n !== theirs.n) mismatches.push(`${table.name}: ${mine.n} rows in SQLite, ${theirs.n} in PostgreSQL`);
  else if (mine.hex !== theirs.hex) mismatches.push(`${table.name}: the rows differ`);
}

// The audit chain, recomputed on the copy.
let prevHash = GENESIS_HASH;
let checked = 0;
const audit = await client.query(
  `SELECT "id", (EXTRACT(EPOCH FROM "createdAt") * 1000)::bigint AS "createdAt", "actorType", "actorId", "actorLabel", "action",
     "targetType", "targetId", "agentId", "data", "prevHash", "hash" FROM "AuditEvent" ORDER BY "id"`,
);
for (const row of audit.rows) {
  const createdAt = Number(row.createdAt);
  if (row.prevHash !== prevHash || auditHash(prevHash, { ...row, createdAt }) !== row.hash) {
    mismatches.push(`the audit chain breaks at event ${row.id} on the copy`);
    break;
  }
  prevHash = row.hash;
  checked += 1;
}
await client.end();
sqlite.close();

if (mismatches.length > 0) fail(`verification failed:\n  ${mismatches.join("\n  ")}`);
const total = [...counts.values()].reduce((sum, n) => sum + n, 0);
console.log(
  `Copied ${total} rows in ${order.length} tables in ${((Date.now() - started) / 1000).toFixed(1)} s. Verified: every table's rows equal ` +
    `(counts and digests, identity histories included), audit chain of ${checked} events intact.`,
);
console.log(`Serve from it with DATABASE_URL="${redactedDatabaseUrl(target.url)}" (your password in place of ***).`);
// Secrets the SQLite deployment stored (tool secrets, webhook settings) are encrypted with its key.
const keyFile = path.join(dataDir(), "encryption-key");
if (!process.env.SWARMDECK_ENCRYPTION_KEY && existsSync(keyFile)) {
  console.log(`Set SWARMDECK_ENCRYPTION_KEY on every instance to the contents of ${keyFile}: the copied secrets are encrypted with it.`);
}

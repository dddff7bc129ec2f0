// The PostgreSQL store's raw SQL (docs/postgresql.md): one pool per app process,
// shared with Prisma's pg adapter (lib/db.ts), and the small API the PostgreSQL
// implementations of the hot paths (the `*.pg.ts` files beside their SQLite
// twins) are written against.
//
// Rows read through it look like the SQLite store's raw rows, so both twins hand
// the same shapes to the code above them: timestamps come back as milliseconds
// since the epoch, COUNT(*) and other bigints as numbers, bytea as a Buffer.
// Write times as JavaScript Dates (the columns are timestamptz, so no time zone
// can shift them). Identifiers are quoted ("Task", "agentId"); parameters are $1, $2, ...
import "server-only";
import pg from "pg";
import { databaseTarget } from "./config/database-url";

/** What a query runs on: the pool, or the one connection of a transaction. */
export type Sql = {
  /** Every row. */
  all<T>(text: string, params?: unknown[]): Promise<T[]>;
  /** The first row, or undefined. */
  get<T>(text: string, params?: unknown[]): Promise<T | undefined>;
  /** Runs a statement; answers how many rows it touched. */
  run(text: string, params?: unknown[]): Promise<number>;
};

const TIMESTAMPTZ = 1184;
const TIMESTAMP = 1114;
const INT8 = 20;
const NUMERIC = 1700;

const parseTimestamptz = pg.types.getTypeParser(TIMESTAMPTZ, "text") as (value: string) => Date;
const rawTypes = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    if (oid === TIMESTAMPTZ) return (value: string) => parseTimestamptz(value).getTime();
    if (oid === TIMESTAMP) return (value: string) => Date.parse(`${value.replace(" ", "T")}Z`);
    if (oid === INT8 || oid === NUMERIC) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

type Shared = { pool: pg.Pool };
const globalForPg = globalThis as unknown as { swarmdeckPg?: Shared };

/** The pool size per app process (SWARMDECK_PG_POOL_SIZE, default 10). */
export function poolSize(): number {
  const value = Number(process.env.SWARMDECK_PG_POOL_SIZE);
  return Number.isInteger(value) && value > 0 ? value : 10;
}

/** The process's pool (created on first use). */
export function pgPool(): pg.Pool {
  if (!globalForPg.swarmdeckPg) {
    const target = databaseTarget();
    if (target.kind !== "postgresql") throw new Error("pgPool() on the SQLite store");
    const pool = new pg.Pool({ connectionString: target.url, max: poolSize(), idleTimeoutMillis: 30_000 });
    // An idle connection the server dropped (a restart, a fail-over) must not crash the process.
    pool.on("error", (error) => console.warn(`PostgreSQL: an idle connection failed (${error.message})`));
    globalForPg.swarmdeckPg = { pool };
  }
  return globalForPg.swarmdeckPg.pool;
}

/** Ends the process's pool, for scripts that are done (an idle pool keeps Node running for idleTimeoutMillis). */
export async function closePgPool(): Promise<void> {
  const shared = globalForPg.swarmdeckPg;
  globalForPg.swarmdeckPg = undefined;
  await shared?.pool.end();
}

// Each statement text is a named (prepared) statement: PostgreSQL parses and plans
// it once per connection instead of on every call. The app's statements are a fixed
// set of templates; past MAX_NAMED distinct texts (a statement built with a varying
// number of placeholders) the rest run unnamed, so no connection collects them forever.
// One map per process (on globalThis): Next bundles this module into several chunks,
// and two copies numbering their own names would give one name two texts.
const MAX_NAMED = 2000;
function statementName(text: string): string | undefined {
  // Off for a connection pooler that cannot keep prepared statements (PgBouncer in
  // transaction mode before 1.21): docs/postgresql.md.
  // Read once per process, not on every query.
  const global = globalThis as unknown as { swarmdeckPgStatements?: Map<string, string> | null };
  if (global.swarmdeckPgStatements === undefined) {
    global.swarmdeckPgStatements = process.env.SWARMDECK_PG_PREPARE === "off" ? null : new Map();
  }
  const statementNames = global.swarmdeckPgStatements;
  if (!statementNames) return undefined;
  let name = statementNames.get(text);
  if (name === undefined && statementNames.size < MAX_NAMED) {
    name = `swarmdeck_${statementNames.size}`;
    statementNames.set(text, name);
  }
  return name;
}

function sqlOn(queryable: pg.Pool | pg.PoolClient): Sql {
  const query = async <T>(text: string, params: unknown[] = []) =>
    (await queryable.query({ name: statementName(text), text, values: params, types: rawTypes })) as unknown as pg.QueryResult<
      T & pg.QueryResultRow
    >;
  return {
    async all<T>(text: string, params?: unknown[]) {
      return (await query<T>(text, params)).rows as T[];
    },
    async get<T>(text: string, params?: unknown[]) {
      return (await query<T>(text, params)).rows[0] as T | undefined;
    },
    async run(text: string, params?: unknown[]) {
      return (await query(text, params)).rowCount ?? 0;
    },
  };
}

/** Queries on the pool, outside any transaction (each statement commits on its own). */
export function pgSql(): Sql {
  return sqlOn(pgPool());
}

// serialization_failure, deadlock_detected: the transaction can simply run again.
const RETRYABLE = new Set(["40001", "40P01"]);

/**
 * Runs `fn` in one transaction on one pooled connection (READ COMMITTED unless
 * `serializable`), committing when it resolves and rolling back when it throws.
 * A serialization failure or a deadlock runs it again from the start (up to 5
 * times), so `fn` must do nothing outside the database it would regret repeating.
 * Notifications it sends (pg_notify) are delivered only if it commits.
 */
export async function pgTransaction<T>(fn: (sql: Sql) => Promise<T>, options: { serializable?: boolean } = {}): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const client = await pgPool().connect();
    let broken: Error | undefined;
    try {
      await client.query(options.serializable ? "BEGIN ISOLATION LEVEL SERIALIZABLE" : "BEGIN");
      const value = await fn(sqlOn(client));
      await client.query("COMMIT");
      return value;
    } catch (error) {
      await client.query("ROLLBACK").catch((rollbackError: Error) => {
        broken = rollbackError;
      });
      const code = (error as { code?: string }).code;
      if (attempt < 5 && code && RETRYABLE.has(code)) continue;
      throw error;
    } finally {
      client.release(broken);
    }
  }
}

/**
 * Advisory lock keys: one number per cluster-wide lock (pg_advisory_xact_lock and
 * pg_try_advisory_lock take a bigint). Keep them here so no two uses collide.
 */
export const ADVISORY = {
  /** Held by the instance that runs the background jobs (lib/jobs/leader.ts). */
  backgroundLeader: 0x5d_0002,
} as const;

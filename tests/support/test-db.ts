// The test database, whichever store the suite runs on (SWARMDECK_TEST_STORE):
// a fresh SQLite file, or a fresh database on a PostgreSQL server
// (TEST_DATABASE_URL names a database to connect to for creating it, default
// postgresql://postgres@127.0.0.1:5432/postgres), and one async handle for the
// tests to read and arrange rows on either.
//
// SQL given to the handle is written once for both stores: quoted identifiers
// ("Task", "agentId"), `?` placeholders, times passed as Dates; timestamps read
// back as milliseconds since the epoch on both.
import { randomBytes } from "node:crypto";
import Database from "better-sqlite3";
import pg from "pg";

export type TestStore = "sqlite" | "postgresql";

/** The store the HTTP and browser suites run on. */
export function testStore(): TestStore {
  const value = process.env.SWARMDECK_TEST_STORE ?? "sqlite";
  if (value !== "sqlite" && value !== "postgresql") throw new Error(`SWARMDECK_TEST_STORE must be sqlite or postgresql, not ${value}`);
  return value;
}

export function postgresAdminUrl(): string {
  return process.env.TEST_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
}

/** Creates an empty PostgreSQL database; answers its URL and how to drop it. */
export async function createPostgresDatabase(prefix = "swarmdeck_test"): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = postgresAdminUrl();
  const name = `${prefix}_${randomBytes(6).toString("hex")}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const dropper = new pg.Client({ connectionString: admin });
      await dropper.connect();
      try {
        await dropper.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await dropper.end();
      }
    },
  };
}

export type TestDb = {
  store: TestStore;
  all<T>(sql: string, params?: unknown[]): Promise<T[]>;
  get<T>(sql: string, params?: unknown[]): Promise<T | undefined>;
  /** Runs a statement; answers how many rows it changed. */
  run(sql: string, params?: unknown[]): Promise<number>;
  close(): Promise<void>;
};

const toSqlite = (value: unknown) => (value instanceof Date ? value.getTime() : typeof value === "boolean" ? Number(value) : value);

const parseTimestamptz = pg.types.getTypeParser(1184, "text") as (value: string) => Date;
const pgTypes = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    if (oid === 1184) return (value: string) => parseTimestamptz(value).getTime();
    if (oid === 20 || oid === 1700) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

/** `?` placeholders as $1, $2, ... (outside quoted strings). */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/'(?:[^']|'')*'|\?/g, (match) => (match === "?" ? `$${++n}` : match));
}

/** Opens the test server's database: `databaseUrl` is what the server was started with. */
export function openTestDb(databaseUrl: string): TestDb {
  if (databaseUrl.startsWith("file:")) {
    const sqlite = new Database(databaseUrl.slice(5));
    sqlite.pragma("busy_timeout = 5000");
    return {
      store: "sqlite",
      async all<T>(sql: string, params: unknown[] = []) {
        return sqlite.prepare(sql).all(...params.map(toSqlite)) as T[];
      },
      async get<T>(sql: string, params: unknown[] = []) {
        return sqlite.prepare(sql).get(...params.map(toSqlite)) as T | undefined;
      },
      async run(sql: string, params: unknown[] = []) {
        return sqlite.prepare(sql).run(...params.map(toSqlite)).changes;
      },
      async close() {
        sqlite.close();
      },
    };
  }
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  const query = (sql: string, params: unknown[]) => pool.query({ text: numbered(sql), values: params, types: pgTypes });
  return {
    store: "postgresql",
    async all<T>(sql: string, params: unknown[] = []) {
      return (await query(sql, params)).rows as T[];
    },
    async get<T>(sql: string, params: unknown[] = []) {
      return (await query(sql, params)).rows[0] as T | undefined;
    },
    async run(sql: string, params: unknown[] = []) {
      return (await query(sql, params)).rowCount ?? 0;
    },
    async close() {
      await pool.end();
    },
  };
}

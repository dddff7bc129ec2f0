// The one database connection of the app process, shared by Prisma and by the
// raw SQL of the hot paths (task dispatch, memory search, metrics rollups).
// DATABASE_URL chooses the store: the embedded SQLite file (this file's
// connection, `withSqlite`, `writeTransaction`) or PostgreSQL (Prisma over the
// pool of lib/pg.ts; raw SQL through lib/pg.ts in the `*.pg.ts` twins).
//
// Why one connection and one lock: better-sqlite3 is synchronous, and Prisma's
// adapter lets a query made outside an interactive transaction run *inside*
// whichever transaction is open on the connection. Every statement here goes
// through a single async mutex instead: a Prisma transaction holds it from
// BEGIN to COMMIT, a raw block (`withSqlite`) holds it while it runs. Rule: inside
// `db.$transaction(async (tx) => ...)` use `tx` only, never `db` or `withSqlite`.
import "server-only";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import type { SqlDriverAdapter, SqlDriverAdapterFactory, Transaction } from "@prisma/driver-adapter-utils";
import { Mutex } from "async-mutex";
import type Database from "better-sqlite3";
import { type DatabaseKind, databaseFile, databaseKind } from "./config/database-url";
import { startWalCheckpointer, type WalCheckpointer } from "./db-checkpointer";
import { PrismaClient } from "./generated/prisma/client";
import { PrismaClient as PgPrismaClient } from "./generated/prisma-pg/client";
import { closePgPool, pgPool } from "./pg";

type Shared = {
  prisma: PrismaClient;
  adapter: Promise<SqlDriverAdapter & { client: Database.Database }>;
  lock: Mutex;
  /** The raw connection once the adapter has opened it (withSqlite's synchronous path). */
  client?: Database.Database;
  /** A withSqlite `fn` is running on the synchronous path (one it calls takes the lock's path, after it). */
  running?: boolean;
  /** The WAL checkpoint thread (lib/db-checkpointer.ts), once the connection is open. */
  checkpointer?: WalCheckpointer;
};

const globalForDb = globalThis as unknown as {
  swarmdeckDb?: Shared;
  swarmdeckPgPrisma?: PrismaClient;
  swarmdeckStore?: DatabaseKind;
  swarmdeckClosing?: Promise<void>;
};

/** The store this process serves from (DATABASE_URL, read once). */
export function storeKind(): DatabaseKind {
  globalForDb.swarmdeckStore ??= databaseKind();
  return globalForDb.swarmdeckStore;
}

/** True on the PostgreSQL store: the `*.pg.ts` twins serve the raw SQL paths. */
export function usesPostgres(): boolean {
  return storeKind() === "postgresql";
}

function locked<A extends unknown[], R>(lock: Mutex, fn: (...args: A) => Promise<R>) {
  return (...args: A) => lock.runExclusive(() => fn(...args));
}

function createShared(): Shared {
  const file = databaseFile();
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const factory = new PrismaBetterSQLite3({ url: `file:${file}`, timeout: 5000 }, { timestampFormat: "unixepoch-ms" });
  const lock = new Mutex();

  const adapter = factory.connect().then((raw) => {
    const withClient = raw as SqlDriverAdapter & { client: Database.Database };
    const client = withClient.client;
    client.pragma("journal_mode = WAL");
    client.pragma("synchronous = NORMAL");
    client.pragma("foreign_keys = ON");
    client.pragma("busy_timeout = 5000");
    // The statement journal in memory: writeTransaction's group commit runs each
    // caller in a savepoint, and SQLite journals the first change of every page in a
    // savepoint to a statement journal, which beyond 64 KiB spills into a temp file.
    // A batch of claims and finishes passes that at once, and every page then cost two
    // pwrite() calls: ~85 per claim+complete cycle, more than all its WAL writes
    // (measured with strace in bench:dispatch). The price: a transaction holds the old
    // content of every page it changes in memory until it ends, so bulk changes go in
    // chunks (requeueForeign in lib/memory/embedder.ts, hygiene's 5,000 a transaction).
    // Temp tables and the ephemeral tables of DISTINCT, IN lists and some GROUP BYs live
    // in memory too; the ones here hold a row per group or value, not copies of tables.
    client.pragma("temp_store = MEMORY");
    // Checkpoint the WAL every ~40 MB instead of SQLite's 4 MB: a checkpoint copies
    // the latest version of each page written since the last one (plus an fsync),
    // and hot pages (the task queue's indexes, the event and audit tails) are
    // written by nearly every commit, so checkpointing a tenth as often does a
    // fraction of the copying. Measured (bench:dispatch): ~15-25% more claim+complete
    // cycles per second and less server CPU per cycle. journal_size_limit trims the
    // file back after a checkpoint when one large write made it grow past that.
    client.pragma("wal_autocheckpoint = 10000");
    client.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
    // The checkpoints themselves run on a thread of their own (lib/db-checkpointer.ts).
    if (process.env.SWARMDECK_WAL_CHECKPOINTER !== "off") shared.checkpointer = startWalCheckpointer(file);

    // Prisma's adapter opens an interactive transaction ($transaction(async (tx) => …))
    // with a plain BEGIN, a deferred one: when it reads and then writes while another
    // process (a second instance, a seed or copy script) committed in between, the
    // upgrade to a write fails at once with SQLITE_BUSY_SNAPSHOT, which busy_timeout
    // does not cover, and the request answers 500. Its BEGIN becomes BEGIN IMMEDIATE,
    // as in writeTransaction below: the transaction waits for the write lock first.
    // (better-sqlite3's own transaction() helper prepares its statements natively
    // and is not affected.)
    const prepare = client.prepare.bind(client);
    client.prepare = ((source: string) => prepare(source === "BEGIN" ? "BEGIN IMMEDIATE" : source)) as typeof client.prepare;

    withClient.queryRaw = locked(lock, raw.queryRaw.bind(raw));
    withClient.executeRaw = locked(lock, raw.executeRaw.bind(raw));
    withClient.executeScript = locked(lock, raw.executeScript.bind(raw));
    const startTransaction = raw.startTransaction.bind(raw);
    withClient.startTransaction = async (isolationLevel) => {
      const release = await lock.acquire();
      let tx: Transaction;
      try {
        tx = await startTransaction(isolationLevel);
      } catch (error) {
        release();
        throw error;
      }
      const commit = tx.commit.bind(tx);
      const rollback = tx.rollback.bind(tx);
      tx.commit = async () => {
        try {
          await commit();
        } finally {
          release();
        }
      };
      tx.rollback = async () => {
        try {
          await rollback();
        } finally {
          release();
        }
      };
      return tx;
    };
    return withClient;
  });

  const sharedFactory: SqlDriverAdapterFactory = {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: () => adapter,
  };
  const prisma = new PrismaClient({ adapter: sharedFactory });
  const shared: Shared = { prisma, adapter, lock };
  void adapter.then(({ client }) => {
    shared.client = client;
  });
  return shared;
}

function shared(): Shared {
  if (usesPostgres()) {
    throw new Error("SQLite-only code ran on the PostgreSQL store: this path needs its PostgreSQL twin (a *.pg.ts file)");
  }
  globalForDb.swarmdeckDb ??= createShared();
  return globalForDb.swarmdeckDb;
}

/**
 * The PostgreSQL store's Prisma client, over the pool of lib/pg.ts. Its models
 * are those of prisma/schema.prisma (prisma/postgresql/schema.prisma is generated
 * from it), so it is typed as the SQLite client the app is written against.
 */
function pgPrisma(): PrismaClient {
  globalForDb.swarmdeckPgPrisma ??= new PgPrismaClient({ adapter: new PrismaPg(pgPool()) }) as unknown as PrismaClient;
  return globalForDb.swarmdeckPgPrisma;
}

/** The Prisma client (a singleton across hot reloads). */
export const db: PrismaClient = new Proxy({} as PrismaClient, {
  get(_target, property) {
    const client = usesPostgres() ? pgPrisma() : shared().prisma;
    const value = Reflect.get(client, property, client);
    return typeof value === "function" ? value.bind(client) : value;
  },
});

/**
 * Closes the process's database connections, for a script or a test that is done with
 * the database (the seed; a test about to delete its database folder). On PostgreSQL an
 * idle pool would keep Node running for its idle timeout. On SQLite the WAL checkpoint
 * thread keeps a connection of its own, and a checkpoint it runs while the folder is
 * being deleted can put a -wal or -shm file back there. Writes already queued for the
 * group commit are committed first and a caller holding the connection's lock finishes
 * first; a call made afterwards opens a new connection (to the same DATABASE_URL).
 */
export function closeDatabase(): Promise<void> {
  globalForDb.swarmdeckClosing ??= closeConnections().finally(() => {
    globalForDb.swarmdeckClosing = undefined;
  });
  return globalForDb.swarmdeckClosing;
}

async function closeConnections(): Promise<void> {
  if (usesPostgres()) {
    await globalForDb.swarmdeckPgPrisma?.$disconnect();
    globalForDb.swarmdeckPgPrisma = undefined;
    await closePgPool();
    return;
  }
  const connection = globalForDb.swarmdeckDb;
  if (!connection) return;
  // The batch gathered so far commits on this connection (a call joins it and resolves after its COMMIT).
  if (globalForBatch.swarmdeckWriteQueue) await writeTransaction(() => undefined);
  await connection.lock.runExclusive(async () => {
    globalForDb.swarmdeckDb = undefined;
    const opened = await connection.adapter.catch(() => undefined);
    await connection.checkpointer?.stop();
    // Prisma closes the connection only if it ever ran a query on it; withSqlite and the
    // group commit use it without Prisma, so it is closed here too (a second close does nothing).
    await connection.prisma.$disconnect();
    opened?.client.close();
  });
}

/**
 * Runs `fn` on the raw better-sqlite3 connection while holding the connection's
 * lock. `fn` is synchronous; wrap writes in `sqlite.transaction(...)` for atomicity.
 */
export function withSqlite<T>(fn: (sqlite: Database.Database) => T): Promise<T> {
  let connection: Shared;
  try {
    connection = shared();
  } catch (error) {
    return Promise.reject(error);
  }
  const { adapter, lock, client } = connection;
  // Nobody holds the connection and nobody waits for it (async-mutex hands a released
  // lock straight to the next waiter, so a waiter keeps it locked): `fn` is synchronous,
  // so running it now is what the lock would do, without its promises. Every worker
  // request's token lookup and every group commit pass here. A withSqlite called from
  // inside such an `fn` waits for the lock, so it runs after that `fn`, as it always did.
  if (client && !connection.running && !lock.isLocked()) {
    connection.running = true;
    try {
      return Promise.resolve(fn(client));
    } catch (error) {
      return Promise.reject(error);
    } finally {
      connection.running = false;
    }
  }
  return adapter.then(({ client: opened }) => lock.runExclusive(() => fn(opened)));
}

type Queued = { fn: (sqlite: Database.Database) => unknown; resolve: (value: unknown) => void; reject: (error: unknown) => void };
const globalForBatch = globalThis as unknown as { swarmdeckWriteQueue?: Queued[] };

/**
 * Runs a synchronous write transaction on the raw connection. It takes SQLite's
 * write lock at BEGIN (BEGIN IMMEDIATE): in a deferred transaction that reads and
 * then writes, another process committing in between (a seed script, a second app
 * instance) makes the upgrade fail at once with SQLITE_BUSY_SNAPSHOT, which
 * busy_timeout does not cover. Taking the lock first makes it wait its turn instead.
 *
 * Group commit: the write transactions asked for in the same turn of the event
 * loop (thirty workers polling at once) share one BEGIN ... COMMIT, each inside
 * its own savepoint. Each still commits or rolls back on its own (a throw undoes
 * only its savepoint and rejects only its caller), runs in the order asked, sees
 * the writes of those before it, and resolves only once the COMMIT is done; the
 * cost of a commit (writing the WAL frames of every touched page) is paid once
 * per batch instead of once per call.
 */
export function writeTransaction<T>(fn: (sqlite: Database.Database) => T): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const queue = globalForBatch.swarmdeckWriteQueue;
    const entry: Queued = { fn, resolve: resolve as (value: unknown) => void, reject };
    if (queue) {
      queue.push(entry);
      return;
    }
    const batch = [entry];
    globalForBatch.swarmdeckWriteQueue = batch;
    setImmediate(() => {
      globalForBatch.swarmdeckWriteQueue = undefined;
      commitBatch(batch);
    });
  });
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * The group commit's two transaction functions, made once per connection: better-sqlite3's
 * `transaction(fn)` builds four wrapper functions (with their properties) on every call,
 * and a batch called it once per caller. Called outside a transaction a wrapper runs
 * BEGIN ... COMMIT, inside one SAVEPOINT ... RELEASE, so `inSavepoint` is each caller's
 * savepoint.
 */
function batchTransactions(sqlite: Database.Database): CommitAll {
  let commit = batchCommits.get(sqlite);
  if (!commit) {
    const inSavepoint = sqlite.transaction((fn: Queued["fn"]) => fn(sqlite));
    commit = sqlite.transaction((batch: Queued[], outcomes: Outcome[]) => {
      for (const { fn } of batch) {
        try {
          outcomes.push({ ok: true, value: inSavepoint(fn) });
        } catch (error) {
          outcomes.push({ ok: false, error });
        }
      }
    }).immediate;
    batchCommits.set(sqlite, commit);
  }
  return commit;
}
type CommitAll = (batch: Queued[], outcomes: Outcome[]) => void;
const batchCommits = new WeakMap<Database.Database, CommitAll>();

function commitBatch(batch: Queued[]): void {
  withSqlite((sqlite) => {
    const outcomes: Outcome[] = [];
    batchTransactions(sqlite)(batch, outcomes);
    return outcomes;
  }).then(
    (outcomes) =>
      outcomes.forEach((outcome, i) => {
        const { resolve, reject } = batch[i] as Queued;
        if (outcome.ok) resolve(outcome.value);
        else reject(outcome.error);
      }),
    (error) => {
      for (const { reject } of batch) reject(error);
    },
  );
}

export type Tx = Parameters<Parameters<PrismaClient["$transaction"]>[0]>[0];

const statements = new WeakMap<Database.Database, Map<string, Database.Statement>>();

/**
 * A cached prepared statement on the raw connection that reads integers as
 * numbers (the adapter turns on BigInt reads for the connection as a whole).
 */
export function prepare(sqlite: Database.Database, text: string): Database.Statement {
  let cache = statements.get(sqlite);
  if (!cache) {
    cache = new Map();
    statements.set(sqlite, cache);
  }
  let statement = cache.get(text);
  if (!statement) {
    statement = sqlite.prepare(text);
    if (statement.reader) statement.safeIntegers(false);
    cache.set(text, statement);
  }
  return statement;
}

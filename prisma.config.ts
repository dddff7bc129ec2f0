// Prisma CLI configuration: the JS schema engine through a driver adapter, so
// generate and migrate work with no engine download. DATABASE_URL chooses the
// store: SQLite (prisma/schema.prisma, prisma/migrations, better-sqlite3) or
// PostgreSQL (prisma/postgresql/, the pg adapter). The wrappers below work
// around bugs of that engine (docs/postgresql.md).
import { mkdirSync } from "node:fs";
import path from "node:path";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { defineConfig } from "prisma/config";
import { databaseTarget } from "./lib/config/database-url";

type Adapter = Awaited<ReturnType<PrismaBetterSQLite3["connect"]>>;

// Bug 3: the WebAssembly engine leaves a 60 s timer that keeps `migrate dev` alive.
const originalSetTimeout = globalThis.setTimeout;
globalThis.setTimeout = ((handler: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
  const timer = originalSetTimeout(handler, ms, ...args);
  if ((ms ?? 0) >= 10_000 && /wasm/.test(new Error().stack ?? "")) timer.unref?.();
  return timer;
}) as typeof setTimeout;

function patchAdapter(adapter: Adapter): Adapter {
  const executeRaw = adapter.executeRaw.bind(adapter);
  const queryRaw = adapter.queryRaw.bind(adapter);
  // Bug 1: whole migration.sql files go through executeRaw, which prepares one statement.
  adapter.executeRaw = async (query) => {
    try {
      return await executeRaw(query);
    } catch (error) {
      if (query.args.length > 0) throw error;
      await adapter.executeScript(query.sql);
      return 0;
    }
  };
  // Bug 2: on a brand-new database _prisma_migrations does not exist yet.
  adapter.queryRaw = async (query) => {
    try {
      return await queryRaw(query);
    } catch (error) {
      if (/_prisma_migrations/.test(query.sql) && /no such table/i.test(String(error))) {
        return { columnNames: [], columnTypes: [], rows: [] };
      }
      throw error;
    }
  };
  return adapter;
}

type PgAdapter = Awaited<ReturnType<PrismaPg["connect"]>>;
type PgResult = { fields: Array<{ dataTypeID: number }> };
type WithIO = { performIO(query: unknown): Promise<PgResult> };

// PostgreSQL catalog types the adapter cannot read, and the text types they read as.
const AS_TEXT = new Map([
  [19, 25], // name -> text
  [18, 25], // "char" -> text
  [1003, 1009], // name[] -> text[]
  [1002, 1009], // "char"[] -> text[]
]);

/** Bug 4: the schema engine reads catalog columns of type `name`, which the pg adapter refuses. */
function readCatalogTypesAsText<T extends object>(queryable: T): T {
  const io = queryable as unknown as WithIO;
  const performIO = io.performIO.bind(io);
  io.performIO = async (query) => {
    const result = await performIO(query);
    for (const field of result.fields) field.dataTypeID = AS_TEXT.get(field.dataTypeID) ?? field.dataTypeID;
    return result;
  };
  return queryable;
}

function patchPgAdapter(adapter: PgAdapter): PgAdapter {
  readCatalogTypesAsText(adapter);
  const startTransaction = adapter.startTransaction.bind(adapter);
  adapter.startTransaction = async (isolationLevel) => readCatalogTypesAsText(await startTransaction(isolationLevel));
  return adapter;
}

const target = databaseTarget();
const folder = target.kind === "postgresql" ? path.join("prisma", "postgresql") : "prisma";

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: path.join(folder, "schema.prisma"),
  migrations: { path: path.join(folder, "migrations"), seed: "tsx prisma/seed.ts" },
  async adapter() {
    if (target.kind === "postgresql") {
      // Bug 5: the CLI never closes the adapter's pool, and an idle pool keeps Node
      // alive for its idle timeout (10 s) after the command is done: every
      // `migrate deploy` on PostgreSQL, so every start, took 10 s longer.
      const factory = new PrismaPg({ connectionString: target.url, allowExitOnIdle: true });
      const connect = factory.connect.bind(factory);
      const connectToShadowDb = factory.connectToShadowDb.bind(factory);
      factory.connect = async () => patchPgAdapter(await connect());
      factory.connectToShadowDb = async () => patchPgAdapter(await connectToShadowDb());
      return factory;
    }
    const file = target.file;
    mkdirSync(path.dirname(file), { recursive: true });
    const factory = new PrismaBetterSQLite3({ url: `file:${file}` }, { timestampFormat: "unixepoch-ms" });
    const connect = factory.connect.bind(factory);
    const connectToShadowDb = factory.connectToShadowDb.bind(factory);
    factory.connect = async () => patchAdapter(await connect());
    factory.connectToShadowDb = async () => patchAdapter(await connectToShadowDb());
    return factory;
  },
});

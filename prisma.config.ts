// Prisma CLI configuration: the JS schema engine through the better-sqlite3
// driver adapter, so generate and migrate work with no engine download.
// The wrappers below work around three bugs of that engine (SETUP-NOTES.md).
import { mkdirSync } from "node:fs";
import path from "node:path";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { defineConfig } from "prisma/config";
import { databaseFile } from "./lib/config/database-url";

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

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: path.join("prisma", "schema.prisma"),
  migrations: { path: path.join("prisma", "migrations"), seed: "tsx prisma/seed.ts" },
  async adapter() {
    const file = databaseFile();
    mkdirSync(path.dirname(file), { recursive: true });
    const factory = new PrismaBetterSQLite3({ url: `file:${file}` }, { timestampFormat: "unixepoch-ms" });
    const connect = factory.connect.bind(factory);
    const connectToShadowDb = factory.connectToShadowDb.bind(factory);
    factory.connect = async () => patchAdapter(await connect());
    factory.connectToShadowDb = async () => patchAdapter(await connectToShadowDb());
    return factory;
  },
});

// Where the SQLite database lives: DATABASE_URL ("file:/abs/path.db" or
// "file:./rel.db", relative to the working directory), else ./data/swarmdeck.db.
import path from "node:path";

export const DEFAULT_DATA_DIR = "data";

export function dataDir(): string {
  return path.resolve(/*turbopackIgnore: true*/ process.env.SWARMDECK_DATA_DIR ?? DEFAULT_DATA_DIR);
}

/** The database file's absolute path. */
export function databaseFile(): string {
  const url = process.env.DATABASE_URL?.trim();
  if (!url) return path.join(dataDir(), "swarmdeck.db");
  const file = url.startsWith("file:") ? url.slice("file:".length) : url;
  return path.resolve(/*turbopackIgnore: true*/ file);
}

/** The URL the better-sqlite3 adapter expects (a plain path with a file: prefix). */
export function resolveDatabaseUrl(): string {
  return `file:${databaseFile()}`;
}

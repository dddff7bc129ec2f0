// Where the database lives. DATABASE_URL is "file:/abs/path.db", "file:./rel.db"
// (relative to the working directory) or a plain path; unset means
// ./data/swarmdeck.db. Anything else (postgres://, mysql://, ...) is refused with
// a message that names only the scheme: a URL's password must never end up in a
// log line or, as it once did, in a folder name of a "relative SQLite path".
import path from "node:path";

export const DEFAULT_DATA_DIR = "data";

export type DatabaseKind = "sqlite";

export class UnsupportedDatabaseUrlError extends Error {
  constructor(readonly scheme: string) {
    super(
      `DATABASE_URL uses "${scheme}:", which this version of Swarmdeck cannot serve. ` +
        (/^postgres(ql)?$/i.test(scheme) ? "PostgreSQL is not supported yet (docs/postgresql.md says what stands). " : "") +
        'Use a SQLite file: DATABASE_URL="file:/path/to/swarmdeck.db", or leave it unset for ./data/swarmdeck.db.',
    );
    this.name = "UnsupportedDatabaseUrlError";
  }
}

// "scheme:" followed by "//", or one of the schemes database URLs use without it.
const URL_SCHEME = /^([a-z][a-z0-9+.-]+):(\/\/)?/i;
const KNOWN_SCHEMES = /^(postgres|postgresql|mysql|mariadb|sqlserver|mongodb(\+srv)?|libsql|prisma(\+postgres)?|cockroachdb|redis)$/i;

export function dataDir(): string {
  return path.resolve(/*turbopackIgnore: true*/ process.env.SWARMDECK_DATA_DIR ?? DEFAULT_DATA_DIR);
}

/** The database the app serves from, or an UnsupportedDatabaseUrlError. */
export function databaseTarget(url = process.env.DATABASE_URL): { kind: DatabaseKind; file: string } {
  const value = url?.trim();
  if (!value) return { kind: "sqlite", file: path.join(dataDir(), "swarmdeck.db") };
  if (value.startsWith("file:")) return { kind: "sqlite", file: path.resolve(/*turbopackIgnore: true*/ value.slice(5)) };
  const [, scheme, slashes] = URL_SCHEME.exec(value) ?? [];
  if (scheme && (slashes || KNOWN_SCHEMES.test(scheme))) throw new UnsupportedDatabaseUrlError(scheme);
  return { kind: "sqlite", file: path.resolve(/*turbopackIgnore: true*/ value) };
}

/** The database file's absolute path. */
export function databaseFile(): string {
  return databaseTarget().file;
}

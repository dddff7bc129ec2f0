// Where the database lives. DATABASE_URL is "file:/abs/path.db", "file:./rel.db"
// (relative to the working directory) or a plain path for the embedded SQLite
// store (unset means ./data/swarmdeck.db), or "postgres://..." /
// "postgresql://..." for the PostgreSQL store (docs/postgresql.md). Anything else
// (mysql://, ...) is refused with a message that names only the scheme: a URL's
// password must never end up in a log line or, as it once did, in a folder name
// of a "relative SQLite path".
import path from "node:path";

export const DEFAULT_DATA_DIR = "data";

export type DatabaseKind = "sqlite" | "postgresql";

export type DatabaseTarget = { kind: "sqlite"; file: string } | { kind: "postgresql"; url: string };

export class UnsupportedDatabaseUrlError extends Error {
  constructor(readonly scheme: string) {
    super(
      `DATABASE_URL uses "${scheme}:", which this version of Swarmdeck cannot serve. ` +
        'Use a SQLite file (DATABASE_URL="file:/path/to/swarmdeck.db", or leave it unset for ./data/swarmdeck.db) ' +
        'or PostgreSQL (DATABASE_URL="postgresql://user:password@host:5432/database").',
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
export function databaseTarget(url = process.env.DATABASE_URL): DatabaseTarget {
  const value = url?.trim();
  if (!value) return { kind: "sqlite", file: path.join(dataDir(), "swarmdeck.db") };
  if (value.startsWith("file:")) return { kind: "sqlite", file: path.resolve(/*turbopackIgnore: true*/ value.slice(5)) };
  const [, scheme, slashes] = URL_SCHEME.exec(value) ?? [];
  if (scheme && slashes && /^postgres(ql)?$/i.test(scheme)) {
    if (!URL.canParse(value)) throw new UnsupportedDatabaseUrlError(scheme);
    return { kind: "postgresql", url: value };
  }
  if (scheme && (slashes || KNOWN_SCHEMES.test(scheme))) throw new UnsupportedDatabaseUrlError(scheme);
  return { kind: "sqlite", file: path.resolve(/*turbopackIgnore: true*/ value) };
}

/** The kind of store DATABASE_URL chooses. */
export function databaseKind(): DatabaseKind {
  return databaseTarget().kind;
}

/** The SQLite database file's absolute path (an error on the PostgreSQL store). */
export function databaseFile(): string {
  const target = databaseTarget();
  if (target.kind !== "sqlite") throw new Error("DATABASE_URL names a PostgreSQL database, not a SQLite file");
  return target.file;
}

/** The URL with its password replaced, for log lines and messages. */
export function redactedDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(unparseable URL)";
  }
}

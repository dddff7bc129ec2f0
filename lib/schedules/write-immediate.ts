// A write transaction that takes SQLite's write lock at BEGIN (BEGIN IMMEDIATE).
// The scheduler and the alert evaluator read, then write: in a deferred
// transaction, another process committing between the read and the first write
// makes the upgrade fail at once with SQLITE_BUSY_SNAPSHOT (busy_timeout does not
// apply). Taking the lock first makes them wait their turn instead.
import "server-only";
import type Database from "better-sqlite3";
import { withSqlite } from "@/lib/db";

export function writeImmediate<T>(fn: (sqlite: Database.Database) => T): Promise<T> {
  return withSqlite((sqlite) => sqlite.transaction(() => fn(sqlite)).immediate());
}

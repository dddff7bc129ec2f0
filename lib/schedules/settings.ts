// The scheduler's settings. Precedence: SwarmConfig (scope global) over the
// environment over the default. The minimum interval keeps a schedule from
// flooding the swarm (a "* * * * *" typed by mistake): expressions that fire more
// often are refused, and a firing that comes too soon after the last is skipped.
import "server-only";
import type Database from "better-sqlite3";
import { prepare, usesPostgres, withSqlite } from "@/lib/db";

export const MIN_INTERVAL_KEY = "SCHEDULE_MIN_INTERVAL_MINUTES";
export const MIN_INTERVAL_ENV = "SWARMDECK_SCHEDULE_MIN_INTERVAL_MINUTES";
export const DEFAULT_MIN_INTERVAL_MINUTES = 5;

function minutes(raw: string | undefined | null): number | undefined {
  if (raw === undefined || raw === null || raw.trim() === "") return undefined;
  const value = Number(raw);
  return Number.isFinite(value) && value >= 1 && value <= 10_080 ? value : undefined;
}

export function minIntervalMs(sqlite: Database.Database, env: NodeJS.ProcessEnv = process.env): number {
  const stored = prepare(sqlite, "SELECT value FROM SwarmConfig WHERE scope = 'global' AND scopeId = '' AND key = ? AND secret = 0").get(
    MIN_INTERVAL_KEY,
  ) as { value: string } | undefined;
  return minIntervalFrom(stored?.value, env);
}

/** The minimum interval from the stored setting (shared with settings.pg.ts). */
export function minIntervalFrom(stored: string | undefined, env: NodeJS.ProcessEnv = process.env): number {
  return (minutes(stored) ?? minutes(env[MIN_INTERVAL_ENV]) ?? DEFAULT_MIN_INTERVAL_MINUTES) * 60_000;
}

/** The minimum interval now, on whichever store (outside any transaction). */
export async function currentMinIntervalMs(): Promise<number> {
  if (usesPostgres()) return (await import("./settings.pg")).minIntervalMsPg((await import("@/lib/pg")).pgSql());
  return withSqlite(minIntervalMs);
}

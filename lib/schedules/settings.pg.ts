// The PostgreSQL twin of settings.ts: the stored minimum interval read through a `Sql`.
import "server-only";
import type { Sql } from "@/lib/pg";
import { MIN_INTERVAL_KEY, minIntervalFrom } from "./settings";

export async function minIntervalMsPg(sql: Sql, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const stored = await sql.get<{ value: string }>(
    `SELECT "value" FROM "SwarmConfig" WHERE "scope" = 'global' AND "scopeId" = '' AND "key" = $1 AND "secret" = false`,
    [MIN_INTERVAL_KEY],
  );
  return minIntervalFrom(stored?.value, env);
}

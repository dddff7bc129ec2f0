// The PostgreSQL twin of alert-config.ts: the stored ALERT_* settings read through a `Sql`.
import "server-only";
import type { Sql } from "@/lib/pg";
import { type AlertConfig, alertConfigFrom } from "./alert-config";

export async function readAlertConfigPg(sql: Sql, env: NodeJS.ProcessEnv = process.env): Promise<AlertConfig> {
  const rows = await sql.all<{ key: string; value: string }>(
    `SELECT "key", "value" FROM "SwarmConfig" WHERE "scope" = 'global' AND "scopeId" = '' AND "secret" = false AND "key" LIKE 'ALERT\\_%'`,
  );
  return alertConfigFrom(rows, env);
}

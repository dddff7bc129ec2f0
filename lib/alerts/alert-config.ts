// Failure-rate alert settings. Precedence: SwarmConfig (scope global) over the
// environment over the defaults: 30 % over 7 days, with at least 10 decided
// (completed + failed) tasks in the window so that 1 failure out of 2 is no alert.
import "server-only";
import type Database from "better-sqlite3";
import { prepare } from "@/lib/db";

export type AlertConfig = { threshold: number; windowDays: number; minTasks: number };

export const ALERT_DEFAULTS: AlertConfig = { threshold: 0.3, windowDays: 7, minTasks: 10 };

/** SwarmConfig keys (scope global) and the environment variables that set each field. */
export const ALERT_SETTINGS = {
  threshold: { key: "ALERT_FAILURE_RATE_THRESHOLD", env: "SWARMDECK_ALERT_FAILURE_RATE", min: 0, max: 1 },
  windowDays: { key: "ALERT_WINDOW_DAYS", env: "SWARMDECK_ALERT_WINDOW_DAYS", min: 1, max: 90 },
  minTasks: { key: "ALERT_MIN_TASKS", env: "SWARMDECK_ALERT_MIN_TASKS", min: 1, max: 1_000_000 },
} as const;

function valid(raw: string | undefined | null, min: number, max: number): number | undefined {
  if (raw === undefined || raw === null || raw.trim() === "") return undefined;
  const value = Number(raw);
  return Number.isFinite(value) && value >= min && value <= max ? value : undefined;
}

export function readAlertConfig(sqlite: Database.Database, env: NodeJS.ProcessEnv = process.env): AlertConfig {
  const rows = prepare(
    sqlite,
    "SELECT key, value FROM SwarmConfig WHERE scope = 'global' AND scopeId = '' AND secret = 0 AND key LIKE 'ALERT_%'",
  ).all() as Array<{
    key: string;
    value: string;
  }>;
  return alertConfigFrom(rows, env);
}

/** The settings from the stored ALERT_* rows (shared with alert-config.pg.ts). */
export function alertConfigFrom(rows: Array<{ key: string; value: string }>, env: NodeJS.ProcessEnv = process.env): AlertConfig {
  const stored = new Map(rows.map((row) => [row.key, row.value]));
  const pick = (field: keyof AlertConfig) => {
    const setting = ALERT_SETTINGS[field];
    return (
      valid(stored.get(setting.key), setting.min, setting.max) ?? valid(env[setting.env], setting.min, setting.max) ?? ALERT_DEFAULTS[field]
    );
  };
  return { threshold: pick("threshold"), windowDays: Math.round(pick("windowDays")), minTasks: Math.round(pick("minTasks")) };
}

// Task rollups (TaskDailyRollup), kept exact by being written in the same raw
// transaction as each task change. (Owned by the metrics work; the task work calls
// `recordTaskRollup` inside its writeTransaction for every create and finish.)
import "server-only";
import type Database from "better-sqlite3";

export type TaskRollupChange =
  | { kind: "created"; agentId: string | null; at: number }
  | { kind: "completed" | "failed" | "cancelled"; agentId: string | null; at: number; durationMs: number | null };

export function recordTaskRollup(_sqlite: Database.Database, _change: TaskRollupChange): void {}

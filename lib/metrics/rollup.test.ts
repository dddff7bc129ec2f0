import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { bucketOf } from "./duration-buckets";
import { recordTaskRollup } from "./rollup";

function database() {
  const sqlite = new Database(":memory:");
  sqlite.exec(`CREATE TABLE TaskDailyRollup (day TEXT NOT NULL, agentId TEXT NOT NULL, created INTEGER NOT NULL DEFAULT 0,
    completed INTEGER NOT NULL DEFAULT 0, failed INTEGER NOT NULL DEFAULT 0, cancelled INTEGER NOT NULL DEFAULT 0,
    durationSumMs REAL NOT NULL DEFAULT 0, durationCount INTEGER NOT NULL DEFAULT 0, durationHist TEXT NOT NULL DEFAULT '[]',
    PRIMARY KEY (day, agentId))`);
  return sqlite;
}

describe("recordTaskRollup", () => {
  it("counts creates and finishes per UTC day and agent, durations of completed tasks only", () => {
    const sqlite = database();
    const day1 = Date.UTC(2026, 10, 1, 23, 59);
    const day2 = Date.UTC(2026, 10, 2, 0, 1);
    recordTaskRollup(sqlite, { kind: "created", agentId: "a", at: day1 });
    recordTaskRollup(sqlite, { kind: "created", agentId: "a", at: day1 });
    recordTaskRollup(sqlite, { kind: "created", agentId: null, at: day2 });
    recordTaskRollup(sqlite, { kind: "completed", agentId: "a", at: day2, durationMs: 2000 });
    recordTaskRollup(sqlite, { kind: "completed", agentId: "a", at: day2, durationMs: 1900 });
    recordTaskRollup(sqlite, { kind: "completed", agentId: "a", at: day2, durationMs: 90_000 });
    recordTaskRollup(sqlite, { kind: "failed", agentId: "a", at: day2, durationMs: 5000 });
    recordTaskRollup(sqlite, { kind: "cancelled", agentId: "a", at: day2, durationMs: null });

    const rows = sqlite.prepare("SELECT * FROM TaskDailyRollup ORDER BY day, agentId").all() as Array<Record<string, unknown>>;
    expect(rows.map((row) => [row.day, row.agentId, row.created])).toEqual([
      ["2026-11-01", "a", 1 + 1],
      ["2026-11-02", "", 1],
      ["2026-11-02", "a", 0],
    ]);
    const a2 = rows[2] ?? {};
    expect([a2.completed, a2.failed, a2.cancelled, a2.durationCount, a2.durationSumMs]).toEqual([3, 1, 1, 3, 93_900]);
    const hist = JSON.parse(String(a2.durationHist)) as number[];
    expect(hist[bucketOf(2000)]).toBe(2);
    expect(hist[bucketOf(90_000)]).toBe(1);
    expect(hist.reduce((sum, n) => sum + n, 0)).toBe(3);
  });
});

// A worker's search must cost what an operator's does: the rows SQLite reads to
// check visibility are the candidates' own (by primary key), never every swarm
// memory plus every memory of the agent. Checked on the real schema (every
// migration applied) with SQLite's own query plan for each kind of viewer.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { hydrateSql, type SearchArgs, visibility } from "./search";

const MIGRATIONS = path.resolve(import.meta.dirname, "..", "..", "prisma", "migrations");

function schema(): Database.Database {
  const sqlite = new Database(":memory:");
  for (const folder of readdirSync(MIGRATIONS)
    .filter((name) => /^\d{14}_/.test(name))
    .sort()) {
    sqlite.exec(readFileSync(path.join(MIGRATIONS, folder, "migration.sql"), "utf8"));
  }
  const now = Date.now();
  sqlite
    .prepare("INSERT INTO Agent (id, name, createdAt, updatedAt) VALUES ('a1', 'one', ?, ?), ('a2', 'two', ?, ?)")
    .run(now, now, now, now);
  const insert = sqlite.prepare(
    "INSERT INTO Memory (scope, agentId, name, content, source, contentHash, createdAt, updatedAt) VALUES (?, ?, 'n', 'c', 'manual', ?, ?, ?)",
  );
  for (let i = 0; i < 2000; i++) insert.run(i % 5 === 0 ? "swarm" : "agent", i % 5 === 0 ? null : `a${(i % 2) + 1}`, `h${i}`, now, now);
  return sqlite;
}

const viewers: Array<[string, Pick<SearchArgs, "viewer" | "scope" | "agentId">]> = [
  ["a worker", { viewer: { kind: "agent", agentId: "a1", isLead: false }, scope: "all" }],
  ["a worker, agent scope", { viewer: { kind: "agent", agentId: "a1", isLead: false }, scope: "agent" }],
  ["an operator narrowed to one agent", { viewer: { kind: "operator" }, scope: "all", agentId: "a2" }],
  ["an operator", { viewer: { kind: "operator" }, scope: "swarm" }],
];

describe("visibility in search queries", () => {
  const sqlite = schema();
  for (const [who, args] of viewers) {
    it(`reads only the candidates' rows, by primary key, for ${who}`, () => {
      const where = visibility({ ...args, query: "x", limit: 10, record: { kind: "search", agentId: null } });
      const plan = (
        sqlite.prepare(`EXPLAIN QUERY PLAN ${hydrateSql(where.sql)}`).all({ ...where.params, ids: "[1, 2, 3]" }) as { detail: string }[]
      ).map((row) => row.detail);
      expect(plan).toContain("SEARCH m USING INTEGER PRIMARY KEY (rowid=?)");
      expect(plan.join("\n")).not.toMatch(/MULTI-INDEX OR|USING INDEX|SCAN m/);
      // And the rows it returns are exactly the visible candidates.
      const rows = sqlite.prepare(hydrateSql(where.sql)).all({ ...where.params, ids: "[1, 2, 3, 4, 5, 6]" }) as {
        id: number;
        scope: string;
        agentId: string | null;
      }[];
      for (const row of rows) {
        if (args.scope !== "all") expect(row.scope).toBe(args.scope);
        const only = args.viewer.kind === "agent" ? args.viewer.agentId : args.agentId;
        if (only) expect(row.scope === "swarm" || row.agentId === only).toBe(true);
      }
      expect(rows.length).toBeGreaterThan(0);
    });
  }
});

// The FTS5 index over memories is filled off the write path (fts-backlog.ts): what
// an operator's keyword filter finds must still be every live memory holding the
// word, whatever order the writes, edits, deletes and catch-ups came in. Checked on
// a real SQLite file with every migration applied, against FTS5's own
// integrity-check (which compares the index with the Memory table) and a plain scan.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { rng } from "@/tests/support/zipf-corpus";
import { catchUpFts, FTS_BATCH, hasFtsBacklog, indexFtsBacklog } from "./fts-backlog";

const MIGRATIONS = path.resolve(import.meta.dirname, "..", "..", "prisma", "migrations");
const folders = readdirSync(MIGRATIONS)
  .filter((name) => /^\d{14}_/.test(name))
  .sort();
const THIS_MIGRATION = folders.findIndex((name) => name.endsWith("_memory_fts_off_the_write_path"));

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A database file with the migrations before `upTo` (exclusive) applied. */
function database(upTo = folders.length): Database.Database {
  const dir = mkdtempSync(path.join(tmpdir(), "fts-backlog-"));
  dirs.push(dir);
  const sqlite = new Database(path.join(dir, "swarmdeck.db"));
  sqlite.pragma("journal_mode = WAL");
  for (const folder of folders.slice(0, upTo)) migrate(sqlite, folder);
  return sqlite;
}

function migrate(sqlite: Database.Database, folder: string) {
  sqlite.exec(readFileSync(path.join(MIGRATIONS, folder, "migration.sql"), "utf8"));
}

let hash = 0;
function insert(sqlite: Database.Database, name: string, content: string): number {
  const now = Date.now();
  return Number(
    sqlite
      .prepare(
        "INSERT INTO Memory (scope, name, content, source, contentHash, createdAt, updatedAt) VALUES ('swarm', ?, ?, 'manual', ?, ?, ?)",
      )
      .run(name, content, `h${hash++}`, now, now).lastInsertRowid,
  );
}

/** What the operator's keyword filter would find (lib/memory/memories.ts), after catching up as it does. */
function found(sqlite: Database.Database, word: string): number[] {
  catchUpFts(sqlite);
  return (
    sqlite.prepare("SELECT rowid AS id FROM memory_fts WHERE memory_fts MATCH ? ORDER BY rowid").all(`"${word}"`) as { id: number }[]
  ).map((row) => row.id);
}

/** The memories whose name or content holds `word` as a word, by a plain scan. */
function scanned(sqlite: Database.Database, word: string): number[] {
  const rows = sqlite.prepare("SELECT id, name, content FROM Memory ORDER BY id").all() as { id: number; name: string; content: string }[];
  return rows.filter((row) => `${row.name} ${row.content}`.split(/\W+/).includes(word)).map((row) => row.id);
}

/** FTS5's own check of the index against the Memory table (throws SQLITE_CORRUPT_VTAB when they differ). */
function integrityCheck(sqlite: Database.Database) {
  sqlite.prepare("INSERT INTO memory_fts (memory_fts, rank) VALUES ('integrity-check', 1)").run();
}

describe("the memories' FTS5 index, filled off the write path", () => {
  it("leaves a write to the catch-up, which then finds it; a query catches up first", () => {
    const sqlite = database();
    const id = insert(sqlite, "flaky ports", "retry the socket bind on flamingo hosts");
    expect(hasFtsBacklog(sqlite)).toBe(true);
    expect(sqlite.prepare("SELECT count(*) AS n FROM memory_fts WHERE memory_fts MATCH 'flamingo'").get()).toEqual({ n: 0 });
    expect(found(sqlite, "flamingo")).toEqual([id]);
    expect(hasFtsBacklog(sqlite)).toBe(false);
    integrityCheck(sqlite);
  });

  it("indexes in batches, in id order, and a backlog of several batches fully", () => {
    const sqlite = database();
    const ids = Array.from({ length: FTS_BATCH * 2 + 7 }, (_, i) => insert(sqlite, `note ${i}`, `walrus number ${i}`));
    expect(indexFtsBacklog(sqlite)).toBe(FTS_BATCH);
    const firstBatch = (sqlite.prepare("SELECT upTo FROM memory_fts_mark").get() as { upTo: number }).upTo;
    expect(firstBatch).toBe(ids[FTS_BATCH - 1]);
    expect(found(sqlite, "walrus")).toEqual(ids);
    integrityCheck(sqlite);
  });

  it("keeps the index exact through edits and deletes of rows on either side of the mark", () => {
    const sqlite = database();
    const random = rng(7);
    const words = ["otter", "heron", "lynx", "ibis", "vole"];
    const pick = () => words[Math.floor(random() * words.length)]!;
    const live: number[] = [];
    for (let step = 0; step < 3000; step++) {
      const roll = random();
      if (roll < 0.5 || live.length === 0) live.push(insert(sqlite, `${pick()} note`, `${pick()} and ${pick()}`));
      else if (roll < 0.7) {
        const id = live[Math.floor(random() * live.length)]!;
        sqlite.prepare("UPDATE Memory SET content = ? WHERE id = ?").run(`${pick()} again`, id);
      } else if (roll < 0.85) {
        const [id] = live.splice(Math.floor(random() * live.length), 1);
        sqlite.prepare("DELETE FROM Memory WHERE id = ?").run(id);
      } else if (roll < 0.9) {
        // An edit that leaves the indexed columns alone (an embedding arriving) changes nothing.
        sqlite.prepare("UPDATE Memory SET embeddingStatus = 'done' WHERE id = ?").run(live[0]);
      } else {
        indexFtsBacklog(sqlite, 1 + Math.floor(random() * 40));
      }
    }
    for (const word of words) expect(found(sqlite, word)).toEqual(scanned(sqlite, word));
    integrityCheck(sqlite);
  });

  it("starts, on a database the insert trigger filled, from its last memory: nothing indexed twice or missed", () => {
    const sqlite = database(THIS_MIGRATION);
    const before = [insert(sqlite, "gecko", "old lesson"), insert(sqlite, "gecko", "older lesson")];
    migrate(sqlite, folders[THIS_MIGRATION]!);
    expect(sqlite.prepare("SELECT upTo FROM memory_fts_mark").get()).toEqual({ upTo: before[1] });
    expect(hasFtsBacklog(sqlite)).toBe(false);
    sqlite.prepare("DELETE FROM Memory WHERE id = ?").run(before[0]);
    const after = insert(sqlite, "gecko", "new lesson");
    expect(found(sqlite, "gecko")).toEqual([before[1], after]);
    integrityCheck(sqlite);
  });
});

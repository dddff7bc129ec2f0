// Group commit in writeTransaction: calls made together share one COMMIT, yet
// each commits or rolls back on its own, in order, and is durable when it resolves.
// And Prisma's interactive transactions stay whole beside another process writing.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const dir = mkdtempSync(path.join(tmpdir(), "swarmdeck-db-test-"));
const file = path.join(dir, "db.sqlite");
let db: typeof import("./db");

beforeAll(async () => {
  process.env.DATABASE_URL = `file:${file}`;
  db = await import("./db");
  await db.withSqlite((sqlite) => sqlite.exec("CREATE TABLE note (id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE)"));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** What another connection sees: only committed rows. */
function committedTexts(): string[] {
  const other = new Database(file, { readonly: true });
  try {
    return (other.prepare("SELECT text FROM note ORDER BY id").all() as { text: string }[]).map((row) => row.text);
  } finally {
    other.close();
  }
}

const insert = (text: string) => (sqlite: Database.Database) => db.prepare(sqlite, "INSERT INTO note (text) VALUES (?)").run(text).changes;

describe("writeTransaction", () => {
  it("runs calls made together in order, each seeing the writes before it, and commits them", async () => {
    const results = await Promise.all([
      db.writeTransaction(insert("first")),
      db.writeTransaction((sqlite) => (db.prepare(sqlite, "SELECT COUNT(*) AS n FROM note").get() as { n: number }).n),
      db.writeTransaction(insert("second")),
    ]);
    expect(results).toEqual([1, 1, 1]);
    expect(committedTexts()).toEqual(["first", "second"]);
  });

  it("undoes only the call that threw, with its own error; the others in the batch still commit", async () => {
    const outcomes = await Promise.allSettled([
      db.writeTransaction(insert("kept before")),
      db.writeTransaction((sqlite) => {
        insert("half-written")(sqlite);
        throw new Error("validation failed after a write");
      }),
      db.writeTransaction(insert("first")), // a UNIQUE violation: SQLite's error, for this caller only
      db.writeTransaction(insert("kept after")),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(["fulfilled", "rejected", "rejected", "fulfilled"]);
    expect(String((outcomes[1] as PromiseRejectedResult).reason)).toContain("validation failed after a write");
    expect(String((outcomes[2] as PromiseRejectedResult).reason)).toMatch(/UNIQUE constraint failed/);
    expect(committedTexts()).toEqual(["first", "second", "kept before", "kept after"]);
  });

  it("is committed by the time a lone call resolves", async () => {
    await db.writeTransaction(insert("alone"));
    expect(committedTexts()).toContain("alone");
  });
});

describe("Prisma's interactive transactions", () => {
  it("read and then write whole while another process writes to the same file", async () => {
    // Another process (a second instance, a seed or copy script); told busy at once instead of waiting,
    // since here it shares this test's thread.
    const other = new Database(file);
    other.pragma("busy_timeout = 0");
    const otherWrite = () => other.prepare("INSERT INTO note (text) VALUES ('from another process')").run();
    let otherWroteFirst = false;
    try {
      await db.db.$transaction(async (tx) => {
        await tx.$queryRawUnsafe("SELECT COUNT(*) AS n FROM note");
        try {
          otherWrite();
          otherWroteFirst = true;
        } catch (error) {
          expect((error as { code?: string }).code).toBe("SQLITE_BUSY");
        }
        await tx.$executeRawUnsafe("INSERT INTO note (text) VALUES ('read, then written')");
      });
      // The other process's turn comes after the commit.
      if (!otherWroteFirst) otherWrite();
    } finally {
      other.close();
    }
    expect(committedTexts()).toEqual(expect.arrayContaining(["read, then written", "from another process"]));
  });
});

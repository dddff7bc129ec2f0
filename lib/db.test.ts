// Group commit in writeTransaction: calls made together share one COMMIT, yet
// each commits or rolls back on its own, in order, and is durable when it resolves.
// The statement journal of its savepoints never becomes a file. And Prisma's interactive
// transactions stay whole beside another process writing.
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

const dir = mkdtempSync(path.join(tmpdir(), "swarmdeck-db-test-"));
const file = path.join(dir, "db.sqlite");
let db: typeof import("./db");

beforeAll(async () => {
  process.env.DATABASE_URL = `file:${file}`;
  db = await import("./db");
  await db.withSqlite((sqlite) => sqlite.exec("CREATE TABLE note (id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE)"));
});

afterAll(async () => {
  await db?.closeDatabase();
  rmSync(dir, { recursive: true, force: true });
});

/** What this process (its worker threads included) holds open, by path. */
function openFiles(): string[] {
  return readdirSync("/proc/self/fd").map((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      return "";
    }
  });
}

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

describe("the statement journal", () => {
  /** The files this process holds open that SQLite made for a statement journal (it names its temp files etilqs_*). */
  function openStatementJournals(): string[] {
    return openFiles().filter((target) => target.includes("etilqs_"));
  }

  it("stays in memory however many pages a group commit's savepoints change (no temp file)", async () => {
    // 4,000 rows of 1 KB (~1,000 pages), committed first: a savepoint journals a page
    // that existed before it began, on its first change.
    const body = "x".repeat(1000);
    await db.withSqlite((sqlite) => sqlite.exec("CREATE TABLE page_filler (id INTEGER PRIMARY KEY, body TEXT NOT NULL)"));
    await db.writeTransaction((sqlite) => {
      for (let row = 0; row < 4000; row++) db.prepare(sqlite, "INSERT INTO page_filler (body) VALUES (?)").run(body);
    });
    // Forty calls in one batch, each in its own savepoint, each changing 100 rows of its
    // own (~25 pages, as a claim changes ~20): SQLite spills a statement journal to a
    // temp file past 64 KiB (16 pages).
    const seen: string[][] = [];
    await Promise.all(
      Array.from({ length: 40 }, (_, call) =>
        db.writeTransaction((sqlite) => {
          db.prepare(sqlite, "UPDATE page_filler SET body = ? WHERE id > ? AND id <= ?").run(
            `${call}:${body}`,
            call * 100,
            call * 100 + 100,
          );
          seen.push(openStatementJournals());
        }),
      ),
    );
    expect(seen).toHaveLength(40);
    expect(seen.flat()).toEqual([]);
    const changed = await db.withSqlite((sqlite) => db.prepare(sqlite, "SELECT COUNT(*) AS n FROM page_filler WHERE body <> ?").get(body));
    expect(changed).toEqual({ n: 4000 });
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

describe("closeDatabase", () => {
  it("closes every connection to the file, the WAL checkpoint thread's too, and the next call opens it again", async () => {
    await db.withSqlite((sqlite) => sqlite.prepare("INSERT INTO note (text) VALUES ('before closing')").run());
    const intoTheFolder = () => openFiles().filter((target) => target.startsWith(`${dir}/`));
    // This connection and the checkpoint thread's (lib/db-checkpointer.ts) both hold the file (SQLite may
    // also keep the handles of connections closed earlier in this file open while others hold locks on it).
    await vi.waitFor(() => expect(intoTheFolder().filter((target) => target === file).length).toBeGreaterThanOrEqual(2));
    // A write gathered for the group commit but not yet committed when the close is asked for.
    const queued = db.writeTransaction((sqlite) => sqlite.prepare("INSERT INTO note (text) VALUES ('queued at the close')").run());

    await db.closeDatabase();
    await queued;
    // Nothing left that could write into the folder while a test (or a script) deletes it.
    expect(intoTheFolder()).toEqual([]);
    expect(committedTexts()).toEqual(expect.arrayContaining(["before closing", "queued at the close"]));

    const row = await db.withSqlite((sqlite) => sqlite.prepare("SELECT COUNT(*) AS n FROM note WHERE text = 'before closing'").get());
    expect(row).toEqual({ n: 1n }); // the connection reads integers as BigInt (Prisma's adapter sets it so)
  });
});

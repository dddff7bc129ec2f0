import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it, vi } from "vitest";
import { startWalCheckpointer } from "./db-checkpointer";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  vi.restoreAllMocks();
});

/** A WAL database whose own connection never checkpoints (autocheckpoint off). */
function walDatabase() {
  const dir = mkdtempSync(path.join(tmpdir(), "swarmdeck-wal-"));
  dirs.push(dir);
  const file = path.join(dir, "app.db");
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("wal_autocheckpoint = 0");
  db.exec("CREATE TABLE note (id INTEGER PRIMARY KEY, body TEXT NOT NULL)");
  return { db, file };
}

async function until(check: () => boolean, timeoutMs: number) {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

describe("WAL checkpoint thread", () => {
  it("copies committed pages into the database file while the writer never checkpoints", async () => {
    const { db, file } = walDatabase();
    const insert = db.prepare("INSERT INTO note (body) VALUES (?)");
    for (let i = 0; i < 300; i++) insert.run(`note ${i} ${"x".repeat(1000)}`);
    const before = statSync(file).size;
    // 300 rows of 1 KB sit in the -wal file only: the database file is still its first pages.
    expect(before).toBeLessThan(64 * 1024);

    const checkpointer = startWalCheckpointer(file, { idleEveryMs: 20, busyEveryMs: 20 });
    const copied = await until(() => statSync(file).size > 300 * 1000, 10_000);
    for (let i = 0; i < 100; i++) insert.run(`later ${i}`);
    const { checkpoints } = await checkpointer.stop();
    db.close();

    expect(copied).toBe(true);
    expect(checkpoints).toBeGreaterThan(0);
    // Every row is there for a new connection, nothing lost or doubled.
    const reader = new Database(file, { readonly: true });
    expect(reader.prepare("SELECT count(*) AS n FROM note").get()).toEqual({ n: 400 });
    reader.close();
  });

  it("checkpoints at the busy cadence while commits keep coming", async () => {
    const { db, file } = walDatabase();
    const insert = db.prepare("INSERT INTO note (body) VALUES (?)");
    const commit = db.transaction((n: number) => {
      for (let i = 0; i < 4; i++) insert.run(`note ${n}.${i} ${"x".repeat(1000)}`);
    });
    // An idle cadence far longer than the test: every checkpoint here is a busy one.
    const checkpointer = startWalCheckpointer(file, { busyEveryMs: 50, idleEveryMs: 10_000 });
    // A server's rhythm: a small commit every few milliseconds for a second.
    let commits = 0;
    for (const started = Date.now(); Date.now() - started < 1000; commits++) {
      commit(commits);
      await new Promise((resolve) => setTimeout(resolve, 4));
    }
    const { checkpoints } = await checkpointer.stop();
    db.close();

    // About 20 at one per 50 ms; a fixed cadence (the idle one, or the old once a
    // second) would give at most one.
    expect(checkpoints).toBeGreaterThanOrEqual(8);
    const reader = new Database(file, { readonly: true });
    expect(reader.prepare("SELECT count(*) AS n FROM note").get()).toEqual({ n: commits * 4 });
    reader.close();
  });

  it("falls back to the idle cadence once nothing is committed", async () => {
    const { db, file } = walDatabase();
    db.prepare("INSERT INTO note (body) VALUES (?)").run("before the thread");
    const checkpointer = startWalCheckpointer(file, { busyEveryMs: 20, idleEveryMs: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const { ticks } = await checkpointer.stop();
    db.close();

    // Its first look finds the database new to it and comes back one busy period later;
    // the second finds nothing committed since and waits the idle period. At the busy
    // cadence throughout it would have looked about 25 times.
    expect(ticks).toBeLessThanOrEqual(2);
    expect(ticks).toBeGreaterThanOrEqual(1);
  });

  it("warns and leaves the writer to checkpoint as before when the thread cannot start", async () => {
    const { db, file } = walDatabase();
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    // better-sqlite3 cannot be found from an empty folder.
    const checkpointer = startWalCheckpointer(file, { resolveFrom: path.join(path.dirname(file), "package.json") });
    expect(await until(() => warn.mock.calls.length > 0, 10_000)).toBe(true);
    expect(String(warn.mock.calls[0]?.[0])).toMatch(/WAL checkpoint thread stopped/);
    await checkpointer.stop();
    db.prepare("INSERT INTO note (body) VALUES (?)").run("still writable");
    expect(db.prepare("SELECT count(*) AS n FROM note").get()).toEqual({ n: 1 });
    db.close();
  });
});

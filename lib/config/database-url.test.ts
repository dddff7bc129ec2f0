// DATABASE_URL: SQLite files in the forms README.md documents; every other URL is
// refused before anything touches the disk, without echoing its password.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { databaseTarget, redactedDatabaseUrl, UnsupportedDatabaseUrlError } from "./database-url";

describe("databaseTarget", () => {
  it("takes file: URLs, absolute or relative to the working directory", () => {
    expect(databaseTarget("file:/srv/swarmdeck/main.db")).toEqual({ kind: "sqlite", file: "/srv/swarmdeck/main.db" });
    expect(databaseTarget("file:./data/x.db")).toEqual({ kind: "sqlite", file: path.resolve("data/x.db") });
  });

  it("defaults to data/swarmdeck.db when unset or blank", () => {
    expect(databaseTarget(undefined)).toEqual({ kind: "sqlite", file: path.resolve("data", "swarmdeck.db") });
    expect(databaseTarget("   ")).toEqual({ kind: "sqlite", file: path.resolve("data", "swarmdeck.db") });
  });

  it("takes a postgres:// or postgresql:// URL as the PostgreSQL store, and never shows its password", () => {
    for (const url of ["postgres://swarm:hunter2secret@db.internal:5432/swarm", "postgresql://swarm:hunter2secret@db/swarm"]) {
      expect(databaseTarget(url)).toEqual({ kind: "postgresql", url });
      expect(redactedDatabaseUrl(url)).not.toContain("hunter2secret");
      expect(redactedDatabaseUrl(url)).toMatch(/^postgres(ql)?:\/\/swarm:\*\*\*@db/);
    }
  });

  it("refuses a PostgreSQL URL it cannot parse, naming the scheme and never the password", () => {
    let caught: unknown;
    try {
      databaseTarget("postgres://swarm:hunter2secret@[db/swarm");
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(UnsupportedDatabaseUrlError);
    expect((caught as Error).message).toContain("postgres:");
    expect((caught as Error).message).not.toContain("hunter2secret");
  });

  it("refuses other database and network URLs, with or without //", () => {
    for (const url of ["mysql://root@localhost/db", "https://example.com/db.sqlite", "libsql://x.turso.io", "mongodb+srv://a:b@c/d"]) {
      expect(() => databaseTarget(url)).toThrow(UnsupportedDatabaseUrlError);
    }
  });
});

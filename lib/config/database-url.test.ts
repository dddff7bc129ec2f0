// DATABASE_URL: SQLite files in the forms README.md documents; every other URL is
// refused before anything touches the disk, without echoing its password.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { databaseTarget, UnsupportedDatabaseUrlError } from "./database-url";

describe("databaseTarget", () => {
  it("takes file: URLs, absolute or relative to the working directory", () => {
    expect(databaseTarget("file:/srv/swarmdeck/main.db")).toEqual({ kind: "sqlite", file: "/srv/swarmdeck/main.db" });
    expect(databaseTarget("file:./data/x.db")).toEqual({ kind: "sqlite", file: path.resolve("data/x.db") });
  });

  it("defaults to data/swarmdeck.db when unset or blank", () => {
    expect(databaseTarget(undefined).file).toBe(path.resolve("data", "swarmdeck.db"));
    expect(databaseTarget("   ").file).toBe(path.resolve("data", "swarmdeck.db"));
  });

  it("refuses a PostgreSQL URL with a message that names the scheme and never the password", () => {
    for (const url of ["postgres://swarm:hunter2secret@db.internal:5432/swarm", "postgresql://swarm:hunter2secret@db/swarm"]) {
      let caught: unknown;
      try {
        databaseTarget(url);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(UnsupportedDatabaseUrlError);
      const message = (caught as Error).message;
      expect(message).toMatch(/postgres(ql)?:/);
      expect(message).toContain("PostgreSQL");
      expect(message).not.toContain("hunter2secret");
    }
  });

  it("refuses other database and network URLs, with or without //", () => {
    for (const url of ["mysql://root@localhost/db", "https://example.com/db.sqlite", "libsql://x.turso.io", "mongodb+srv://a:b@c/d"]) {
      expect(() => databaseTarget(url)).toThrow(UnsupportedDatabaseUrlError);
    }
  });
});

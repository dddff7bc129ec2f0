// prisma/postgresql/schema.prisma is generated from prisma/schema.prisma: the two
// stores must serve the same models, so a change to one without the other fails here.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script without types
import { postgresqlSchema } from "../../scripts/prisma-postgresql-schema.mjs";

const ROOT = path.resolve(import.meta.dirname, "..", "..");
const read = (file: string) => readFileSync(path.join(ROOT, file), "utf8");

describe("the PostgreSQL schema", () => {
  it("is prisma/schema.prisma for PostgreSQL, regenerated (node scripts/prisma-postgresql-schema.mjs)", () => {
    expect(read("prisma/postgresql/schema.prisma")).toBe(postgresqlSchema(read("prisma/schema.prisma")));
  });

  it("has the same models and fields, every time as timestamptz", () => {
    const sqlite = read("prisma/schema.prisma");
    const postgres = read("prisma/postgresql/schema.prisma");
    const models = (text: string) => [...text.matchAll(/^model (\w+) \{/gm)].map((match) => match[1]);
    expect(models(postgres)).toEqual(models(sqlite));
    expect(models(postgres).length).toBeGreaterThan(20);
    const times = (text: string) => [...text.matchAll(/^\s+(\w+)\s+DateTime\??.*$/gm)];
    expect(times(postgres).length).toBe(times(sqlite).length);
    for (const [line] of times(postgres)) expect(line).toContain("@db.Timestamptz(3)");
    expect(postgres).toContain('provider = "postgresql"');
  });
});

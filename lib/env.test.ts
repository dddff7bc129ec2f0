import { describe, expect, it } from "vitest";
import { parseEnv as parse } from "./env";

const parseEnv = (values: Record<string, string>) => parse({ NODE_ENV: "production", ...values });

const key = "q".repeat(43);

describe("parseEnv", () => {
  it("runs on SQLite with nothing set", () => {
    expect(parseEnv({}).PORT).toBe(3000);
  });

  it("asks a PostgreSQL deployment for the secrets every instance must share, by name", () => {
    const run = () => parseEnv({ DATABASE_URL: "postgresql://swarm:pw-not-shown@db/swarm" });
    expect(run).toThrow(/NEXTAUTH_SECRET: required with a PostgreSQL DATABASE_URL/);
    expect(run).toThrow(/SWARMDECK_ENCRYPTION_KEY: required with a PostgreSQL DATABASE_URL/);
    expect(run).not.toThrow(/pw-not-shown/);
    const env = parseEnv({ DATABASE_URL: "postgresql://swarm:pw@db/swarm", NEXTAUTH_SECRET: key, SWARMDECK_ENCRYPTION_KEY: key });
    expect(env.SWARMDECK_ENCRYPTION_KEY).toBe(key);
  });

  it("refuses a database URL it cannot serve", () => {
    expect(() => parseEnv({ DATABASE_URL: "mysql://root@localhost/db" })).toThrow(/DATABASE_URL: .*"mysql:"/);
  });
});

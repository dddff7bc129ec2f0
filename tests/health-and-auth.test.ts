import { describe, expect, it } from "vitest";
import { admin, client, server } from "./support/client";

describe("health", () => {
  it("answers ok with a database round trip, without credentials", async () => {
    const reply = await client().get("/api/health");
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ ok: true, db: "ok", database: server().store });
  });
});

describe("operator authentication", () => {
  it("refuses the operator API without credentials (401, error shape)", async () => {
    const reply = await client().get("/api/v1/agents");
    expect(reply.status).toBe(401);
    expect(reply.body.error.code).toBe("unauthorized");
    expect(typeof reply.body.error.message).toBe("string");
  });

  it("refuses an unknown bearer token", async () => {
    const reply = await client("sdo_not-a-real-token").get("/api/v1/agents");
    expect(reply.status).toBe(401);
  });

  it("accepts the seeded admin token", async () => {
    const reply = await admin().get("/api/v1/agents");
    expect(reply.status).toBe(200);
    expect(Array.isArray(reply.body.agents)).toBe(true);
  });
});

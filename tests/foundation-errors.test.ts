// Every error status of the operator API and the worker protocol, on real routes
// of the real server: the one error shape, the right status, and no half-writes.
import { beforeAll, describe, expect, it } from "vitest";
import { admin, client, createAgent, createWorkerToken, server, sessionCookie, uniqueName, userWithToken } from "./support/client";
import { openTestDb } from "./support/test-db";

let viewer: Awaited<ReturnType<typeof userWithToken>>;
let operator: Awaited<ReturnType<typeof userWithToken>>;

beforeAll(async () => {
  viewer = await userWithToken("viewer");
  operator = await userWithToken("operator");
});

function expectError(reply: { status: number; body: any }, status: number, code: string) {
  expect(reply.status).toBe(status);
  expect(reply.body.error.code).toBe(code);
  expect(typeof reply.body.error.message).toBe("string");
}

async function agentNames(): Promise<string[]> {
  return (await admin().get("/api/v1/agents")).body.agents.map((agent: { name: string }) => agent.name);
}

describe("400: validation and malformed JSON", () => {
  it("names the invalid field in details and creates nothing", async () => {
    const reply = await admin().post("/api/v1/agents", { name: "Not A Slug!" });
    expectError(reply, 400, "validation_failed");
    expect(reply.body.error.details).toEqual([expect.objectContaining({ path: "name", message: expect.stringContaining("lower-case") })]);
    expect(await agentNames()).not.toContain("Not A Slug!");
  });

  it("says what is wrong in words an operator can act on (the form shows them under its fields)", async () => {
    const name = uniqueName();
    const long = await admin().post("/api/v1/agents", { name, displayName: "x".repeat(81) });
    expectError(long, 400, "validation_failed");
    expect(long.body.error.details).toEqual([{ path: "displayName", message: "at most 80 characters" }]);
    const slots = await admin().post("/api/v1/agents", { name, maxConcurrentTasks: 0 });
    expect(slots.body.error.details).toEqual([{ path: "maxConcurrentTasks", message: "at least 1" }]);
    expect(await agentNames()).not.toContain(name);
  });

  it("refuses unknown fields and wrong types", async () => {
    const reply = await admin().post("/api/v1/agents", { name: uniqueName(), securityProfile: "reckless" });
    expectError(reply, 400, "validation_failed");
    expect(reply.body.error.details[0].path).toBe("securityProfile");
  });

  it("says so when the body is not JSON", async () => {
    const name = uniqueName();
    const reply = await admin().post("/api/v1/agents", undefined, { raw: `{"name": "${name}"` });
    expectError(reply, 400, "invalid_json");
    expect(await agentNames()).not.toContain(name);
  });

  it("refuses a body that is not UTF-8 instead of storing U+FFFD in place of what was sent", async () => {
    const agent = await createAgent();
    const token = await createWorkerToken(agent.id);
    const name = uniqueName();
    // "caf\xe9": Latin-1, not UTF-8. The worker's memory write is served by the fast path, an agent by Next.
    const latin1 = (json: string) =>
      Buffer.concat([Buffer.from(json.slice(0, json.indexOf("@"))), Buffer.from([0xe9]), Buffer.from(json.slice(json.indexOf("@") + 1))]);
    const send = (path: string, bearer: string, json: string) =>
      fetch(`${server().baseUrl}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
        body: latin1(json),
      });
    for (const reply of [
      await send("/api/worker/memories", token, JSON.stringify({ name: "menu", content: "caf@ au lait" })),
      await send("/api/v1/agents", server().adminToken, JSON.stringify({ name, description: "caf@" })),
    ]) {
      expect(reply.status).toBe(400);
      expect(await reply.json()).toMatchObject({ error: { code: "invalid_json", message: "The request body is not valid UTF-8" } });
    }
    expect(await agentNames()).not.toContain(name);
    expect((await admin().get(`/api/v1/memories?agentId=${agent.id}`)).body.memories).toEqual([]);
  });

  it("validates the query string too", async () => {
    const reply = await admin().get("/api/v1/audit?limit=0");
    expectError(reply, 400, "validation_failed");
    expect(reply.body.error.details[0].path).toBe("limit");
  });

  it("refuses control and text-direction characters in names and titles operators read, storing nothing", async () => {
    // U+202E turns what follows around on screen: "h\u202Etxt.exe" reads as "hexe.txt".
    const agent = await createAgent();
    const worker = client(await createWorkerToken(agent.id));
    const hidden = "build-host\u202Eevil";
    const registered = await worker.post("/api/worker/register", { version: "1.0\u001b[31m", hostname: hidden, harness: "claude" });
    expectError(registered, 400, "validation_failed");
    expect(registered.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual(["hostname", "version"]);
    expect(registered.body.error.details[0].message).toContain("control or text-direction characters");
    expect((await admin().get(`/api/v1/agents/${agent.id}`)).body.agent.workerHostname).toBeNull();

    const title = `Pay ${uniqueName()}\u2066 the invoice`;
    expectError(await admin().post("/api/v1/tasks", { title }), 400, "validation_failed");
    expectError(await worker.post("/api/worker/tasks", { title: "line one\nline two" }), 400, "validation_failed");
    const tokenName = `ci ${uniqueName()}\u0007`;
    expectError(await admin().post("/api/v1/tokens", { name: tokenName }), 400, "validation_failed");
    expectError(await admin().post(`/api/v1/agents/${agent.id}/tokens`, { name: tokenName }), 400, "validation_failed");
    const tasks = (await admin().get("/api/v1/tasks?limit=200")).body.tasks.map((task: { title: string }) => task.title);
    expect(tasks).not.toContain(title);
    const tokens = (await admin().get("/api/v1/tokens")).body.tokens.map((token: { name: string }) => token.name);
    expect(tokens).not.toContain(tokenName);

    // Right-to-left text itself is welcome, and a pasted tab; only the invisible controls are refused.
    const arabic = await admin().post("/api/v1/tasks", { title: `راجع الفاتورة ${uniqueName()}` });
    expect(arabic.status).toBe(201);
    expect((await admin().post("/api/v1/tasks", { title: `Review\tthe invoice ${uniqueName()}` })).status).toBe(201);
  });

  it("refuses a too-short password and keeps no user", async () => {
    const email = `${uniqueName("short")}@test.local`;
    const reply = await admin().post("/api/v1/users", { email, role: "operator", password: "short" });
    expectError(reply, 400, "validation_failed");
    expect(reply.body.error.details[0].path).toBe("password");
    const users = (await admin().get("/api/v1/users")).body.users.map((user: { email: string }) => user.email);
    expect(users).not.toContain(email);
  });
});

describe("401: no, bad or revoked credentials", () => {
  it("refuses a request without credentials", async () => {
    expectError(await client().get("/api/v1/audit"), 401, "unauthorized");
    expectError(await client().post("/api/worker/register", { version: "1", hostname: "h", harness: "claude" }), 401, "unauthorized");
  });

  it("refuses unknown tokens and a malformed Authorization header", async () => {
    expectError(await client("sdo_made-up").get("/api/v1/agents"), 401, "unauthorized");
    expectError(
      await client("sdw_made-up").post("/api/worker/register", { version: "1", hostname: "h", harness: "x" }),
      401,
      "unauthorized",
    );
    const reply = await client().request("GET", "/api/v1/agents", undefined, { headers: { authorization: "Basic abc" } });
    expectError(reply, 401, "unauthorized");
  });

  it("stops a revoked operator token at once", async () => {
    const user = await userWithToken("operator");
    expect((await client(user.token).get("/api/v1/agents")).status).toBe(200);
    expect((await admin().delete(`/api/v1/tokens/${user.tokenId}`)).status).toBe(204);
    expectError(await client(user.token).get("/api/v1/agents"), 401, "unauthorized");
  });

  it("stops a revoked worker token at once", async () => {
    const agent = await createAgent();
    const created = await admin().post(`/api/v1/agents/${agent.id}/tokens`, { name: "soon revoked" });
    const worker = client(created.body.token);
    const register = { version: "1.0.0", hostname: "box", harness: "claude" };
    expect((await worker.post("/api/worker/register", register)).status).toBe(200);
    expect((await admin().delete(`/api/v1/agents/${agent.id}/tokens/${created.body.id}`)).status).toBe(204);
    expectError(await worker.post("/api/worker/register", register), 401, "unauthorized");
  });

  it("stops a disabled user's token", async () => {
    const user = await userWithToken("operator");
    expect((await admin().patch(`/api/v1/users/${user.id}`, { disabled: true })).status).toBe(200);
    expectError(await client(user.token).get("/api/v1/agents"), 401, "unauthorized");
  });
});

describe("403: authenticated but not allowed", () => {
  it("lets a viewer read but not write", async () => {
    expect((await client(viewer.token).get("/api/v1/agents")).status).toBe(200);
    expect((await client(viewer.token).get("/api/v1/audit")).status).toBe(200);
    const name = uniqueName();
    expectError(await client(viewer.token).post("/api/v1/agents", { name }), 403, "forbidden");
    expectError(await client(viewer.token).put("/api/v1/config", { scope: "global", key: "X", value: "1" }), 403, "forbidden");
    expect(await agentNames()).not.toContain(name);
  });

  it("keeps security profiles, users and tokens for admins", async () => {
    const agent = await createAgent({ securityProfile: "standard" });
    const op = client(operator.token);
    expectError(await op.patch(`/api/v1/agents/${agent.id}`, { securityProfile: "power" }), 403, "forbidden");
    expect((await admin().get(`/api/v1/agents/${agent.id}`)).body.agent.securityProfile).toBe("standard");
    expectError(await op.get("/api/v1/users"), 403, "forbidden");
    expectError(await op.post("/api/v1/tokens", { name: "mine" }), 403, "forbidden");
    expectError(await op.post(`/api/v1/agents/${agent.id}/tokens`, { name: "w" }), 403, "forbidden");
    expectError(await op.put("/api/v1/config", { scope: "global", key: "OP_SECRET", value: "s", secret: true }), 403, "forbidden");
    const name = uniqueName();
    expectError(await op.post("/api/v1/agents", { name, securityProfile: "power" }), 403, "forbidden");
    expect(await agentNames()).not.toContain(name);
    expect((await op.post("/api/v1/agents", { name, securityProfile: "standard" })).status).toBe(201);
    // An operator may still change what is theirs to change.
    expect((await op.patch(`/api/v1/agents/${agent.id}`, { description: "by an operator" })).status).toBe(200);
  });

  it("refuses a worker token on the operator API", async () => {
    const agent = await createAgent();
    const token = await createWorkerToken(agent.id);
    expectError(await client(token).get("/api/v1/agents"), 403, "forbidden");
    expectError(await client(token).get(`/api/v1/agents/${agent.id}`), 403, "forbidden");
  });

  it("refuses an operator token and a browser session on the worker API", async () => {
    const body = { version: "1.0.0", hostname: "box", harness: "claude" };
    expectError(await admin().post("/api/worker/register", body), 403, "forbidden");
    const cookie = await sessionCookie();
    // The session is valid on the operator API ...
    const agents = await client().request("GET", "/api/v1/agents", undefined, { headers: { cookie } });
    expect(agents.status).toBe(200);
    // ... and refused on the worker API.
    const reply = await client().request("POST", "/api/worker/register", body, { headers: { cookie } });
    expectError(reply, 403, "forbidden");
  });
});

describe("404: unknown things", () => {
  it("answers 404 for unknown agents, tokens and users", async () => {
    expectError(await admin().get("/api/v1/agents/no-such-agent"), 404, "not_found");
    expectError(await admin().post("/api/v1/agents/no-such-agent/tokens", { name: "x" }), 404, "not_found");
    expectError(await admin().patch("/api/v1/users/no-such-user", { role: "viewer" }), 404, "not_found");
    expectError(await admin().delete("/api/v1/tokens/no-such-token"), 404, "not_found");
  });

  it("does not let one agent's URL revoke another agent's token", async () => {
    const a = await createAgent();
    const b = await createAgent();
    const token = await admin().post(`/api/v1/agents/${b.id}/tokens`, { name: "b's" });
    expectError(await admin().delete(`/api/v1/agents/${a.id}/tokens/${token.body.id}`), 404, "not_found");
    expect((await client(token.body.token).post("/api/worker/register", { version: "1", hostname: "h", harness: "x" })).status).toBe(200);
  });
});

describe("409: conflicts", () => {
  it("refuses a taken agent name", async () => {
    const agent = await createAgent();
    const reply = await admin().post("/api/v1/agents", { name: agent.name });
    expectError(reply, 409, "conflict");
    expect(reply.body.error.message).toContain(agent.name);
  });

  it("refuses renaming an agent to a taken name, says which field, and changes nothing", async () => {
    const taken = await createAgent();
    const agent = await createAgent({ description: "before" });
    const reply = await admin().patch(`/api/v1/agents/${agent.id}`, { name: taken.name, description: "after" });
    expectError(reply, 409, "conflict");
    expect(reply.body.error.message).toContain(taken.name);
    expect(reply.body.error.details).toEqual({ field: "name" });
    expect((await admin().get(`/api/v1/agents/${agent.id}`)).body.agent).toMatchObject({ name: agent.name, description: "before" });
    // Its own name is not a conflict.
    const same = await admin().patch(`/api/v1/agents/${agent.id}`, { name: agent.name, description: "after" });
    expect(same.status).toBe(200);
    expect(same.body.agent).toMatchObject({ name: agent.name, description: "after" });
    // A name that is no slug is a validation error on that field.
    const bad = await admin().patch(`/api/v1/agents/${agent.id}`, { name: "Not A Slug!" });
    expectError(bad, 400, "validation_failed");
    expect(bad.body.error.details).toEqual([expect.objectContaining({ path: "name", message: expect.stringContaining("lower-case") })]);
  });

  it("refuses a taken email", async () => {
    const reply = await admin().post("/api/v1/users", { email: viewer.email.toUpperCase(), role: "viewer", password: "another-long-one" });
    expectError(reply, 409, "conflict");
  });

  it("never demotes or disables the last active admin", async () => {
    const users = (await admin().get("/api/v1/users")).body.users as { id: string; email: string; role: string; disabled: boolean }[];
    const me = users.find((user) => user.email === server().adminEmail);
    expect(me).toBeDefined();
    // Leave the seeded admin as the only active admin for this test, then put things back.
    const others = users.filter((user) => user.role === "admin" && !user.disabled && user.id !== me?.id);
    for (const other of others) expect((await admin().patch(`/api/v1/users/${other.id}`, { role: "operator" })).status).toBe(200);
    try {
      const demote = await admin().patch(`/api/v1/users/${me?.id}`, { role: "operator" });
      expectError(demote, 409, "conflict");
      expect(demote.body.error.message).toMatch(/last active admin/);
      expectError(await admin().patch(`/api/v1/users/${me?.id}`, { disabled: true }), 409, "conflict");
      const after = (await admin().get("/api/v1/users")).body.users.find((user: { id: string }) => user.id === me?.id);
      expect(after).toMatchObject({ role: "admin", disabled: false });

      // With a second admin, the first may step down (and come back).
      const second = await userWithToken("admin");
      expect((await client(second.token).patch(`/api/v1/users/${me?.id}`, { role: "operator" })).body.user.role).toBe("operator");
      expect((await client(second.token).patch(`/api/v1/users/${me?.id}`, { role: "admin" })).body.user.role).toBe("admin");
      expect((await admin().patch(`/api/v1/users/${second.id}`, { disabled: true })).status).toBe(200);
    } finally {
      for (const other of others) await admin().patch(`/api/v1/users/${other.id}`, { role: "admin" });
    }
  });
});

describe("413: bodies over the limit", () => {
  it("refuses a body over 1 MiB (declared length)", async () => {
    const name = uniqueName();
    const reply = await admin().post("/api/v1/agents", undefined, {
      raw: JSON.stringify({ name, description: "x".repeat(1024 * 1024 + 10) }),
    });
    expectError(reply, 413, "payload_too_large");
    expect(reply.body.error.details).toEqual({ limit: 1024 * 1024 });
    expect(await agentNames()).not.toContain(name);
  });

  it("refuses a streamed body once it passes 1 MiB", async () => {
    const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 20) return controller.close();
        sent += 1;
        controller.enqueue(chunk);
      },
    });
    const response = await fetch(`${server().baseUrl}/api/v1/agents`, {
      method: "POST",
      headers: { authorization: `Bearer ${server().adminToken}`, "content-type": "application/json" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(response.status).toBe(413);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("payload_too_large");
  });

  it("holds the sign-in form to the same limit before anyone is signed in: 413 over 1 MiB, 411 for an undeclared length", async () => {
    // The admin's right password, padded past the limit: refused whole, no session made.
    const { baseUrl, adminEmail, adminPassword } = server();
    const csrf = await fetch(`${baseUrl}/api/auth/csrf`);
    const { csrfToken } = (await csrf.json()) as { csrfToken: string };
    const cookie = csrf.headers
      .getSetCookie()
      .map((line) => line.split(";")[0])
      .join("; ");
    const form = (extra: Record<string, string>) =>
      new URLSearchParams({ csrfToken, email: adminEmail, password: adminPassword, json: "true", ...extra });
    const signIn = (body: BodyInit, init: Record<string, unknown> = {}) =>
      fetch(`${baseUrl}/api/auth/callback/credentials`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", cookie },
        body,
        ...init,
      } as RequestInit);
    const sessionSet = (response: Response) => response.headers.getSetCookie().some((line) => line.includes("session-token="));

    const padded = await signIn(form({ pad: "x".repeat(2 * 1024 * 1024) }));
    expect(padded.status).toBe(413);
    expect(await padded.json()).toMatchObject({ error: { code: "payload_too_large", details: { limit: 1024 * 1024 } } });
    expect(sessionSet(padded)).toBe(false);

    const bytes = new TextEncoder().encode(form({}).toString());
    const streamed = await signIn(
      new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(bytes);
          controller.close();
        },
      }),
      { duplex: "half" },
    );
    expect(streamed.status).toBe(411);
    expect(((await streamed.json()) as { error: { code: string } }).error.code).toBe("length_required");
    expect(sessionSet(streamed)).toBe(false);

    // The same form at its own size signs in as always.
    const plain = await signIn(form({}));
    expect(plain.status).toBe(200);
    expect(sessionSet(plain)).toBe(true);
  });
});

describe("500: failures that leak nothing", () => {
  it("answers a generic message with an error id when the database fails", async () => {
    const sqlite = openTestDb(server().databaseUrl);
    try {
      await sqlite.run('ALTER TABLE "SwarmConfig" RENAME TO "SwarmConfig_away"');
      const reply = await admin().get("/api/v1/config");
      expectError(reply, 500, "internal_error");
      expect(reply.body.error.message).toMatch(/^Something went wrong on our side \(error id [0-9a-f-]{36}\)$/);
      const text = JSON.stringify(reply.body);
      expect(text).not.toMatch(/SwarmConfig|sqlite|postgres|SELECT|no such table|relation|prisma/i);
      expect(reply.body.error.details).toBeUndefined();
    } finally {
      await sqlite.run('ALTER TABLE "SwarmConfig_away" RENAME TO "SwarmConfig"');
      await sqlite.close();
    }
    expect((await admin().get("/api/v1/config")).status).toBe(200);
  });
});

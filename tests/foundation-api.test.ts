// The operator API core on the real server: worker and operator tokens, users,
// config (secrets encrypted at rest), worker registration, and the audit trail
// every one of those mutations leaves.
import { describe, expect, it } from "vitest";
import { admin, client, createAgent, server, userWithToken } from "./support/client";
import { openTestDb } from "./support/test-db";

type AuditEvent = { id: number; action: string; targetId: string | null; agentId: string | null; data: any; actorLabel: string };

async function auditFor(action: string, targetId: string): Promise<AuditEvent[]> {
  const reply = await admin().get(`/api/v1/audit?action=${encodeURIComponent(action)}&limit=200`);
  expect(reply.status).toBe(200);
  return (reply.body.events as AuditEvent[]).filter((event) => event.targetId === targetId);
}

describe("worker tokens", () => {
  it("shows the secret once, lists without it, records use, revokes; all audited", async () => {
    const agent = await createAgent();
    const created = await admin().post(`/api/v1/agents/${agent.id}/tokens`, { name: "laptop runner" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "laptop runner", revokedAt: null, lastUsedAt: null });
    expect(created.body.token).toMatch(/^sdw_[A-Za-z0-9_-]{43}$/);
    expect(created.body.token.startsWith(created.body.prefix.replace("…", ""))).toBe(true);

    const register = await client(created.body.token).post("/api/worker/register", {
      version: "0.3.1",
      hostname: "runner-7",
      harness: "claude",
    });
    expect(register.status).toBe(200);

    const listed = await admin().get(`/api/v1/agents/${agent.id}/tokens`);
    expect(listed.status).toBe(200);
    expect(listed.body.tokens).toHaveLength(1);
    expect(listed.body.tokens[0]).toMatchObject({ id: created.body.id, name: "laptop runner" });
    expect(listed.body.tokens[0].lastUsedAt).not.toBeNull();
    expect(JSON.stringify(listed.body)).not.toContain(created.body.token);

    expect((await admin().delete(`/api/v1/agents/${agent.id}/tokens/${created.body.id}`)).status).toBe(204);
    const after = await admin().get(`/api/v1/agents/${agent.id}/tokens`);
    expect(after.body.tokens[0].revokedAt).not.toBeNull();

    expect(await auditFor("worker_token.created", created.body.id)).toHaveLength(1);
    expect(await auditFor("worker_token.revoked", created.body.id)).toHaveLength(1);
    // Only the hash is stored.
    const sqlite = openTestDb(server().databaseUrl);
    const row = await sqlite.get<Record<string, unknown>>('SELECT * FROM "WorkerToken" WHERE "id" = ?', [created.body.id]);
    await sqlite.close();
    expect(JSON.stringify(row)).not.toContain(created.body.token);
  });

  it("refuses an empty name", async () => {
    const agent = await createAgent();
    const reply = await admin().post(`/api/v1/agents/${agent.id}/tokens`, { name: "  " });
    expect(reply.status).toBe(400);
    expect((await admin().get(`/api/v1/agents/${agent.id}/tokens`)).body.tokens).toHaveLength(0);
  });

  it("dies with its agent: archiving revokes the agent's tokens", async () => {
    const agent = await createAgent();
    const created = await admin().post(`/api/v1/agents/${agent.id}/tokens`, { name: "w" });
    expect((await admin().delete(`/api/v1/agents/${agent.id}`)).status).toBe(204);
    const reply = await client(created.body.token).post("/api/worker/register", { version: "1", hostname: "h", harness: "x" });
    expect(reply.status).toBe(401);
  });
});

describe("worker registration", () => {
  it("answers with the token's agent and records the worker on it", async () => {
    const agent = await createAgent({ role: "lead", securityProfile: "paranoid" });
    const token = (await admin().post(`/api/v1/agents/${agent.id}/tokens`, { name: "w" })).body.token;
    const reply = await client(token).post("/api/worker/register", { version: "2.1.0", hostname: "gpu-box", harness: "claude-code" });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      agent: { id: agent.id, name: agent.name, role: "lead", securityProfile: "paranoid" },
      pollIntervalMs: expect.any(Number),
    });
    const read = (await admin().get(`/api/v1/agents/${agent.id}`)).body.agent;
    expect(read).toMatchObject({ workerVersion: "2.1.0", workerHostname: "gpu-box", harness: "claude-code", online: true });
    expect(Date.now() - Date.parse(read.lastSeenAt)).toBeLessThan(60_000);
    const events = await auditFor("worker.registered", agent.id);
    expect(events).toHaveLength(1);
    expect(events[0]?.data).toMatchObject({ hostname: "gpu-box", version: "2.1.0" });
    expect(events[0]?.agentId).toBe(agent.id);
  });

  it("refuses a body without the worker's facts", async () => {
    const agent = await createAgent();
    const token = (await admin().post(`/api/v1/agents/${agent.id}/tokens`, { name: "w" })).body.token;
    const reply = await client(token).post("/api/worker/register", { version: "1" });
    expect(reply.status).toBe(400);
    expect(reply.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual(["harness", "hostname"]);
    expect((await admin().get(`/api/v1/agents/${agent.id}`)).body.agent.workerHostname).toBeNull();
  });
});

describe("operator API tokens", () => {
  it("creates a token for yourself or a named user, lists owners, revokes; audited", async () => {
    const mine = await admin().post("/api/v1/tokens", { name: "ci" });
    expect(mine.status).toBe(201);
    expect(mine.body.token).toMatch(/^sdo_/);
    expect(mine.body.owner.email).toBe(server().adminEmail);
    expect((await client(mine.body.token).get("/api/v1/users")).status).toBe(200);

    const viewer = await userWithToken("viewer");
    const list = await admin().get("/api/v1/tokens");
    const row = list.body.tokens.find((token: { id: string }) => token.id === viewer.tokenId);
    expect(row.owner).toMatchObject({ id: viewer.id, email: viewer.email, role: "viewer" });
    expect(JSON.stringify(list.body)).not.toContain(mine.body.token);

    expect((await admin().delete(`/api/v1/tokens/${mine.body.id}`)).status).toBe(204);
    expect((await client(mine.body.token).get("/api/v1/users")).status).toBe(401);
    expect(await auditFor("api_token.created", mine.body.id)).toHaveLength(1);
    expect(await auditFor("api_token.revoked", mine.body.id)).toHaveLength(1);
  });

  it("refuses a token for an unknown user", async () => {
    const reply = await admin().post("/api/v1/tokens", { name: "x", userId: "nobody" });
    expect(reply.status).toBe(404);
  });
});

describe("users", () => {
  it("creates, changes role, disables and resets passwords; never logs a password", async () => {
    const password = "first-password-123";
    const created = await admin().post("/api/v1/users", { email: "  Casey@Example.test ", name: "Casey", role: "operator", password });
    expect(created.status).toBe(201);
    expect(created.body.user).toMatchObject({ email: "casey@example.test", name: "Casey", role: "operator", disabled: false });
    expect(created.body.user.passwordHash).toBeUndefined();
    const id = created.body.user.id;

    const patched = await admin().patch(`/api/v1/users/${id}`, { role: "viewer", password: "second-password-456" });
    expect(patched.body.user.role).toBe("viewer");
    expect((await admin().patch(`/api/v1/users/${id}`, { disabled: true })).body.user.disabled).toBe(true);
    expect((await admin().patch(`/api/v1/users/${id}`, {})).status).toBe(400);

    const events = [...(await auditFor("user.created", id)), ...(await auditFor("user.updated", id))];
    expect(events.map((event) => event.action).sort()).toEqual(["user.created", "user.updated", "user.updated"]);
    const text = JSON.stringify(events);
    expect(text).not.toContain(password);
    expect(text).not.toContain("second-password-456");
    expect(text).toContain('"passwordChanged":true');
  });
});

describe("config", () => {
  it("stores the global setup script and reads it back; audited without the value", async () => {
    const script = `#!/bin/bash\necho "setup ${Date.now()}"\n`;
    const put = await admin().put("/api/v1/config", { scope: "global", key: "SETUP_SCRIPT", value: script });
    expect(put.status).toBe(200);
    expect(put.body.entry).toMatchObject({ scope: "global", scopeId: "", key: "SETUP_SCRIPT", value: script, secret: false });
    const get = await admin().get("/api/v1/config?scope=global&key=SETUP_SCRIPT");
    expect(get.body.entries).toEqual([expect.objectContaining({ value: script })]);
    const events = await auditFor("config", put.body.entry.id);
    expect(events.length).toBeGreaterThan(0);
    expect(JSON.stringify(events)).not.toContain("setup ");
  });

  it("refuses a save over an entry someone else changed since its base (409 stale_base), and keeps theirs", async () => {
    const key = `SCRIPT_${Date.now()}`;
    // A first save that expects no entry yet.
    const first = await admin().put("/api/v1/config", { scope: "global", key, value: "theirs v1", baseUpdatedAt: null });
    expect(first.status).toBe(200);
    const loaded = first.body.entry.updatedAt as string;
    // Another operator saves on top of it; a second "first save" is now stale too.
    const other = client((await userWithToken("operator")).token);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await other.put("/api/v1/config", { scope: "global", key, value: "theirs v2", baseUpdatedAt: loaded })).status).toBe(200);
    for (const baseUpdatedAt of [loaded, null]) {
      const stale = await admin().put("/api/v1/config", { scope: "global", key, value: "mine", baseUpdatedAt });
      expect(stale.status).toBe(409);
      expect(stale.body.error.code).toBe("stale_base");
      expect(stale.body.error.details.current).toMatchObject({ key, value: "theirs v2" });
    }
    expect((await admin().get(`/api/v1/config?key=${key}`)).body.entries[0].value).toBe("theirs v2");
    // On the current base the save goes through.
    const current = (await admin().get(`/api/v1/config?key=${key}`)).body.entries[0].updatedAt as string;
    const saved = await admin().put("/api/v1/config", { scope: "global", key, value: "mine", baseUpdatedAt: current });
    expect(saved.status).toBe(200);
    expect(saved.body.entry.value).toBe("mine");
    // Without a base the save is the plain last-writer-wins PUT it always was.
    expect((await admin().put("/api/v1/config", { scope: "global", key, value: "anyway" })).status).toBe(200);
    expect((await admin().put("/api/v1/config", { scope: "global", key, value: "x", baseUpdatedAt: "yesterday" })).status).toBe(400);
    expect((await admin().delete(`/api/v1/config?scope=global&key=${key}`)).status).toBe(204);
  });

  it("encrypts secrets at rest, never returns them, keeps them for admins", async () => {
    const key = `API_KEY_${Date.now()}`;
    const value = "sk-super-secret-value-123";
    const put = await admin().put("/api/v1/config", { scope: "global", key, value, secret: true });
    expect(put.status).toBe(200);
    expect(put.body.entry).toMatchObject({ key, secret: true, value: null });
    expect((await admin().get(`/api/v1/config?key=${key}`)).body.entries[0].value).toBeNull();

    const sqlite = openTestDb(server().databaseUrl);
    const row = (await sqlite.get<{ value: string }>('SELECT "value" FROM "SwarmConfig" WHERE "key" = ?', [key])) as { value: string };
    await sqlite.close();
    expect(row.value).toMatch(/^v1:/);
    expect(row.value).not.toContain(value);

    // An operator can neither overwrite nor delete the secret, nor turn it into a plain value.
    const operator = client((await userWithToken("operator")).token);
    expect((await operator.put("/api/v1/config", { scope: "global", key, value: "x" })).status).toBe(403);
    expect((await operator.delete(`/api/v1/config?scope=global&key=${key}`)).status).toBe(403);

    const audit = JSON.stringify(await auditFor("config", put.body.entry.id));
    expect(audit).not.toContain(value);
    expect((await admin().delete(`/api/v1/config?scope=global&key=${key}`)).status).toBe(204);
    expect((await admin().get(`/api/v1/config?key=${key}`)).body.entries).toEqual([]);
    expect((await admin().delete(`/api/v1/config?scope=global&key=${key}`)).status).toBe(404);
    expect(await auditFor("config.deleted", put.body.entry.id)).toHaveLength(1);
  });

  it("keeps a secret secret when an update leaves out `secret` (a key rotated with a plain PUT)", async () => {
    const key = `ROTATED_KEY_${Date.now()}`;
    expect((await admin().put("/api/v1/config", { scope: "global", key, value: "sk-first-secret-value", secret: true })).status).toBe(200);
    const rotated = await admin().put("/api/v1/config", { scope: "global", key, value: "sk-rotated-secret-value" });
    expect(rotated.status).toBe(200);
    expect(rotated.body.entry).toMatchObject({ key, secret: true, value: null });
    const viewer = client((await userWithToken("viewer")).token);
    expect((await viewer.get(`/api/v1/config?key=${key}`)).body.entries).toEqual([expect.objectContaining({ secret: true, value: null })]);
    const sqlite = openTestDb(server().databaseUrl);
    const row = (await sqlite.get<{ value: string; secret: unknown }>('SELECT "value", "secret" FROM "SwarmConfig" WHERE "key" = ?', [
      key,
    ])) as { value: string };
    await sqlite.close();
    expect(row.value).toMatch(/^v1:/);
    expect(row.value).not.toContain("sk-rotated-secret-value");
    // Only an admin who says so turns it into a plain value.
    const plain = await admin().put("/api/v1/config", { scope: "global", key, value: "not secret now", secret: false });
    expect(plain.body.entry).toMatchObject({ key, secret: false, value: "not secret now" });
    expect((await admin().delete(`/api/v1/config?scope=global&key=${key}`)).status).toBe(204);
  });

  it("scopes entries to an agent that exists", async () => {
    const agent = await createAgent();
    const put = await admin().put("/api/v1/config", { scope: "agent", scopeId: agent.id, key: "MODEL", value: "opus" });
    expect(put.status).toBe(200);
    expect((await admin().get(`/api/v1/config?scope=agent&scopeId=${agent.id}`)).body.entries).toHaveLength(1);
    // Bad scopes answer in the API's error shape and write nothing, neither globally nor for the agent.
    const key = `MODEL_${agent.id.slice(-8).toUpperCase()}`;
    const bad: Array<[Record<string, unknown>, number, string]> = [
      [{ scope: "agent", scopeId: "ghost", key, value: "x" }, 404, "not_found"],
      [{ scope: "agent", key, value: "x" }, 400, "validation_failed"],
      [{ scope: "global", scopeId: agent.id, key, value: "x" }, 400, "validation_failed"],
      [{ scope: "global", key: "1bad key", value: "x" }, 400, "validation_failed"],
    ];
    for (const [body, status, code] of bad) {
      const reply = await admin().put("/api/v1/config", body);
      expect(reply.status, JSON.stringify(body)).toBe(status);
      expect(reply.body.error.code, JSON.stringify(body)).toBe(code);
      expect(reply.body.error.message.length, JSON.stringify(body)).toBeGreaterThan(0);
    }
    expect((await admin().get(`/api/v1/config?key=${key}`)).body.entries).toEqual([]);
    const entries = (await admin().get(`/api/v1/config?scope=agent&scopeId=${agent.id}`)).body.entries;
    expect(entries.map((e: { key: string; value: string }) => [e.key, e.value])).toEqual([["MODEL", "opus"]]);
  });
});

describe("audit log", () => {
  it("pages newest first with a cursor and filters by action family and agent", async () => {
    const agent = await createAgent();
    for (const name of ["a", "b", "c"]) await admin().post(`/api/v1/agents/${agent.id}/tokens`, { name });
    const first = await admin().get(`/api/v1/audit?agentId=${agent.id}&action=worker_token&limit=2`);
    expect(first.status).toBe(200);
    expect(first.body.events.map((event: AuditEvent) => event.data.name)).toEqual(["c", "b"]);
    expect(first.body.nextBefore).toBe(first.body.events[1].id);
    const second = await admin().get(`/api/v1/audit?agentId=${agent.id}&action=worker_token&limit=2&before=${first.body.nextBefore}`);
    expect(second.body.events.map((event: AuditEvent) => event.data.name)).toEqual(["a"]);
    expect(second.body.nextBefore).toBeNull();

    const all = await admin().get(`/api/v1/audit?agentId=${agent.id}`);
    expect(all.body.events.map((event: AuditEvent) => event.action)).toContain("agent.created");
    const about = await admin().get(`/api/v1/audit?targetId=${agent.id}`);
    expect(about.body.events.map((event: AuditEvent) => event.action)).toContain("agent.created");
    expect(about.body.events.every((event: AuditEvent) => event.targetId === agent.id)).toBe(true);
    const exact = await admin().get(`/api/v1/audit?agentId=${agent.id}&action=agent.created`);
    expect(exact.body.events.every((event: AuditEvent) => event.action === "agent.created")).toBe(true);
    expect(exact.body.events.length).toBeGreaterThan(0);
  });

  it("names each target and links to where it lives; a target since deleted keeps its type and short id", async () => {
    const agent = await createAgent();
    const task = await admin().post("/api/v1/tasks", { title: "Rotate the deploy keys", agentId: agent.id });
    const schedule = await admin().post("/api/v1/schedules", {
      name: "Nightly triage",
      cron: "0 3 * * *",
      timezone: "UTC",
      targetKind: "pool",
      taskTitle: "Triage the night's failures",
    });
    expect(schedule.status, JSON.stringify(schedule.body)).toBe(201);
    const target = async (action: string, targetId: string) => (await auditFor(action, targetId))[0] as AuditEvent & { target: unknown };
    expect((await target("agent.created", agent.id)).target).toEqual({
      label: agent.name,
      href: `/agents/${agent.id}`,
      agentName: agent.name,
    });
    expect((await target("task.created", task.body.task.id)).target).toEqual({
      label: "Rotate the deploy keys",
      href: `/tasks/${task.body.task.id}`,
      agentName: agent.name,
    });
    const scheduleId = schedule.body.schedule?.id ?? schedule.body.id;
    expect((await target("schedule.created", scheduleId)).target).toMatchObject({
      label: "Nightly triage",
      href: `/schedules/${scheduleId}`,
    });
    expect((await admin().delete(`/api/v1/schedules/${scheduleId}`)).status).toBeLessThan(300);
    const gone = (await target("schedule.created", scheduleId)).target as { label: string; href: string | null };
    expect(gone.href).toBeNull();
    expect(gone.label).toBe(`schedule ${scheduleId.slice(0, 8)}…`);
  });

  it("verifies the chain, detects a tampered row, and verifies again once restored", async () => {
    const agent = await createAgent();
    const ok = await client((await userWithToken("viewer")).token).get("/api/v1/audit/verify");
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ ok: true, brokenAt: null });
    expect(ok.body.checked).toBeGreaterThan(0);

    const target = (await auditFor("agent.created", agent.id))[0];
    expect(target).toBeDefined();
    const sqlite = openTestDb(server().databaseUrl);
    const original = (await sqlite.get<{ data: string }>('SELECT "data" FROM "AuditEvent" WHERE "id" = ?', [target?.id])) as {
      data: string;
    };
    try {
      await sqlite.run('UPDATE "AuditEvent" SET "data" = ? WHERE "id" = ?', ['{"name":"someone-else"}', target?.id]);
      const broken = await admin().get("/api/v1/audit/verify");
      expect(broken.body).toMatchObject({ ok: false, brokenAt: target?.id });
    } finally {
      await sqlite.run('UPDATE "AuditEvent" SET "data" = ? WHERE "id" = ?', [original.data, target?.id]);
      await sqlite.close();
    }
    expect((await admin().get("/api/v1/audit/verify")).body).toMatchObject({ ok: true, brokenAt: null });
  });
});

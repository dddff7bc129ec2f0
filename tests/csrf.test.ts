// Cross-site request forgery: a change made with the session cookie must come from
// the app's own pages (Origin / Sec-Fetch-Site) with a JSON body; API tokens keep
// working from scripts. Issue 15, point 1.
import { beforeAll, describe, expect, it } from "vitest";
import { admin, client, server, sessionCookie, uniqueName } from "./support/client";
import { startTestServer } from "./support/test-server";

let cookie: string;
const otherOrigin = () => `http://127.0.0.1:${Number(new URL(server().baseUrl).port) + 1}`;

async function usersNamed(email: string) {
  const reply = await admin().get("/api/v1/users");
  return (reply.body.users as Array<{ email: string }>).filter((user) => user.email === email);
}

function newUser() {
  return { email: `${uniqueName("csrf")}@test.local`, role: "admin", password: "attacker-chosen-password" };
}

beforeAll(async () => {
  cookie = await sessionCookie();
});

describe("cookie-authenticated changes", () => {
  it("refuses the issue's attack: a text/plain POST /api/v1/users from another port on the same host", async () => {
    const body = newUser();
    const reply = await client().request("POST", "/api/v1/users", undefined, {
      raw: JSON.stringify(body),
      headers: { cookie, origin: otherOrigin(), "content-type": "text/plain", "sec-fetch-site": "same-site" },
    });
    expect(reply.status).toBe(403);
    expect(reply.body.error).toMatchObject({ code: "forbidden", details: { reason: "cross_site_request" } });
    expect(await usersNamed(body.email)).toEqual([]);
  });

  it("refuses a foreign Origin even with a JSON body, and a request naming no origin at all", async () => {
    const body = newUser();
    const foreign = await client().request("POST", "/api/v1/users", body, { headers: { cookie, origin: "http://evil.example" } });
    expect(foreign.status).toBe(403);
    const opaque = await client().request("POST", "/api/v1/users", body, { headers: { cookie, origin: "null" } });
    expect(opaque.status).toBe(403);
    const anonymous = await client().request("POST", "/api/v1/users", body, { headers: { cookie } });
    expect(anonymous.status).toBe(403);
    const sibling = await client().request("POST", "/api/v1/users", body, { headers: { cookie, "sec-fetch-site": "same-site" } });
    expect(sibling.status).toBe(403);
    expect(await usersNamed(body.email)).toEqual([]);
  });

  it("refuses a same-origin body that is not declared JSON (what an HTML form or a no-cors fetch sends)", async () => {
    const body = newUser();
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]) {
      const reply = await client().request("POST", "/api/v1/users", undefined, {
        raw: JSON.stringify(body),
        headers: { cookie, origin: server().baseUrl, "content-type": type },
      });
      expect(reply.status).toBe(415);
      expect(reply.body.error.code).toBe("unsupported_media_type");
    }
    expect(await usersNamed(body.email)).toEqual([]);
  });

  it("refuses a cross-site DELETE with no body", async () => {
    const created = await admin().post("/api/v1/tokens", { name: uniqueName("victim token") });
    expect(created.status).toBe(201);
    const reply = await client().request("DELETE", `/api/v1/tokens/${created.body.id}`, undefined, {
      headers: { cookie, origin: otherOrigin(), "sec-fetch-site": "same-site" },
    });
    expect(reply.status).toBe(403);
    const listed = await admin().get("/api/v1/tokens");
    const token = (listed.body.tokens as Array<{ id: string; revokedAt: string | null }>).find((t) => t.id === created.body.id);
    expect(token?.revokedAt ?? null).toBeNull();
  });

  it("accepts the app's own pages: same Origin (or Sec-Fetch-Site: same-origin) and a JSON body", async () => {
    const first = newUser();
    const byOrigin = await client().request("POST", "/api/v1/users", first, { headers: { cookie, origin: server().baseUrl } });
    expect(byOrigin.status).toBe(201);
    const second = newUser();
    const byFetchSite = await client().request("POST", "/api/v1/users", second, {
      headers: { cookie, "sec-fetch-site": "same-origin", "content-type": "application/json; charset=utf-8" },
    });
    expect(byFetchSite.status).toBe(201);
    expect(await usersNamed(first.email)).toHaveLength(1);
    expect(await usersNamed(second.email)).toHaveLength(1);
  });

  it("leaves reads alone: a GET with the cookie from anywhere still answers (no change, nothing to forge)", async () => {
    const reply = await client().request("GET", "/api/v1/agents", undefined, { headers: { cookie, origin: otherOrigin() } });
    expect(reply.status).toBe(200);
  });
});

describe("token-authenticated API clients", () => {
  it("keep working with no Origin and a body their HTTP library labelled text/plain", async () => {
    const body = newUser();
    const reply = await admin().request("POST", "/api/v1/users", undefined, {
      raw: JSON.stringify(body),
      headers: { "content-type": "text/plain;charset=UTF-8" },
    });
    expect(reply.status).toBe(201);
    expect(await usersNamed(body.email)).toHaveLength(1);
  });
});

describe("X-Forwarded-Host", () => {
  it("is not believed from a client: a foreign page that names its own host there is still refused", async () => {
    const body = newUser();
    const reply = await client().request("POST", "/api/v1/users", body, {
      headers: { cookie, origin: "http://evil.example", "x-forwarded-host": "evil.example" },
    });
    expect(reply.status).toBe(403);
    expect(reply.body.error).toMatchObject({ code: "forbidden", details: { reason: "cross_site_request" } });
    expect(await usersNamed(body.email)).toEqual([]);
  });

  it("names the public host behind a proxy the operator declared (SWARMDECK_TRUST_PROXY=1), and only that host", async () => {
    const behind = await startTestServer({ env: { SWARMDECK_TRUST_PROXY: "1" } });
    try {
      const proxied = await sessionCookie(behind.adminEmail, behind.adminPassword, behind.baseUrl);
      const post = (origin: string, body: unknown) =>
        fetch(`${behind.baseUrl}/api/v1/users`, {
          method: "POST",
          headers: { cookie: proxied, origin, "x-forwarded-host": "swarm.example.com", "content-type": "application/json" },
          body: JSON.stringify(body),
        });
      expect((await post("https://swarm.example.com", newUser())).status).toBe(201);
      const foreign = await post("http://evil.example", newUser());
      expect(foreign.status).toBe(403);
    } finally {
      await behind.stop();
    }
  }, 120_000);
});

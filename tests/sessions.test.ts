// Revocable sessions (issue 15, point 4): the cookie names a server-side record that
// every request checks. Sign-out, a password change or reset, and Settings end it.
import { describe, expect, it } from "vitest";
import { admin, client, server, sessionCookie, userWithToken } from "./support/client";

/** What the browser does for an API call from the app's own page. */
function asBrowser(cookie: string) {
  return {
    get: (path: string) => client().request("GET", path, undefined, { headers: { cookie } }),
    patch: (path: string, body: unknown) => client().request("PATCH", path, body, { headers: { cookie, origin: server().baseUrl } }),
    delete: (path: string) => client().request("DELETE", path, undefined, { headers: { cookie, origin: server().baseUrl } }),
  };
}

async function signOut(cookie: string) {
  const csrf = await fetch(`${server().baseUrl}/api/auth/csrf`, { headers: { cookie } });
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const response = await fetch(`${server().baseUrl}/api/auth/signout`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie },
    body: new URLSearchParams({ csrfToken, json: "true" }),
  });
  expect(response.status).toBeLessThan(400);
}

describe("ending sessions", () => {
  it("a cookie replayed after sign-out no longer works", async () => {
    const user = await userWithToken("operator");
    const cookie = await sessionCookie(user.email, user.password);
    expect((await asBrowser(cookie).get("/api/v1/agents")).status).toBe(200);
    await signOut(cookie);
    const replayed = await asBrowser(cookie).get("/api/v1/agents");
    expect(replayed.status).toBe(401);
    expect(replayed.body.error.code).toBe("unauthorized");
    // The pages refuse it too: back to the login page.
    const page = await fetch(`${server().baseUrl}/settings`, { headers: { cookie }, redirect: "manual" });
    expect(page.status).toBeGreaterThanOrEqual(300);
    expect(page.status).toBeLessThan(400);
    expect(page.headers.get("location")).toContain("/login");
  });

  it("an admin's password reset ends every session of that user", async () => {
    const user = await userWithToken("operator");
    const laptop = await sessionCookie(user.email, user.password);
    const phone = await sessionCookie(user.email, user.password);
    const reset = await admin().patch(`/api/v1/users/${user.id}`, { password: "a-brand-new-password" });
    expect(reset.status).toBe(200);
    expect((await asBrowser(laptop).get("/api/v1/agents")).status).toBe(401);
    expect((await asBrowser(phone).get("/api/v1/agents")).status).toBe(401);
    const fresh = await sessionCookie(user.email, "a-brand-new-password");
    expect((await asBrowser(fresh).get("/api/v1/agents")).status).toBe(200);
  });

  it("changing one's own password keeps the session that did it and ends the others", async () => {
    const me = await userWithToken("admin");
    const here = await sessionCookie(me.email, me.password);
    const elsewhere = await sessionCookie(me.email, me.password);
    const changed = await asBrowser(here).patch(`/api/v1/users/${me.id}`, { password: "my-own-new-password" });
    expect(changed.status).toBe(200);
    expect((await asBrowser(here).get("/api/v1/agents")).status).toBe(200);
    expect((await asBrowser(elsewhere).get("/api/v1/agents")).status).toBe(401);
  });

  it("disabling a user ends their sessions", async () => {
    const user = await userWithToken("viewer");
    const cookie = await sessionCookie(user.email, user.password);
    expect((await admin().patch(`/api/v1/users/${user.id}`, { disabled: true })).status).toBe(200);
    expect((await admin().patch(`/api/v1/users/${user.id}`, { disabled: false })).status).toBe(200);
    expect((await asBrowser(cookie).get("/api/v1/agents")).status).toBe(401);
  });
});

describe("Settings: listing and ending sessions", () => {
  it("a user sees and ends their own sessions only; an admin sees and ends anyone's", async () => {
    const alice = await userWithToken("operator");
    const bob = await userWithToken("viewer");
    const aliceHere = await sessionCookie(alice.email, alice.password);
    const aliceThere = await sessionCookie(alice.email, alice.password);
    const bobCookie = await sessionCookie(bob.email, bob.password);

    const listed = await asBrowser(aliceHere).get("/api/v1/sessions");
    expect(listed.status).toBe(200);
    const mine = listed.body.sessions as Array<{ id: string; current: boolean; user: { email: string }; address: string }>;
    expect(mine).toHaveLength(2);
    expect(mine.every((session) => session.user.email === alice.email)).toBe(true);
    expect(mine.filter((session) => session.current)).toHaveLength(1);
    expect(mine[0]?.address).toBe("127.0.0.1");

    const bobs = (await asBrowser(bobCookie).get("/api/v1/sessions")).body.sessions as Array<{ id: string }>;
    expect(bobs).toHaveLength(1);
    // Alice cannot end Bob's session (nor learn that it exists)...
    const refused = await asBrowser(aliceHere).delete(`/api/v1/sessions/${bobs[0]?.id}`);
    expect(refused.status).toBe(404);
    expect((await asBrowser(bobCookie).get("/api/v1/agents")).status).toBe(200);
    // ...but can end her other one, which then stops working.
    const other = mine.find((session) => !session.current);
    expect((await asBrowser(aliceHere).delete(`/api/v1/sessions/${other?.id}`)).status).toBe(204);
    expect((await asBrowser(aliceThere).get("/api/v1/agents")).status).toBe(401);
    expect((await asBrowser(aliceHere).get("/api/v1/agents")).status).toBe(200);

    // An admin lists everyone's sessions and ends Bob's.
    const all = (await admin().get("/api/v1/sessions")).body.sessions as Array<{ id: string; user: { email: string } }>;
    expect(all.some((session) => session.user.email === bob.email)).toBe(true);
    expect((await admin().delete(`/api/v1/sessions/${bobs[0]?.id}`)).status).toBe(204);
    expect((await asBrowser(bobCookie).get("/api/v1/agents")).status).toBe(401);
    const audit = await admin().get("/api/v1/audit?action=session.ended&limit=5");
    expect(JSON.stringify(audit.body)).toContain(bob.email);
  });
});

/** Signs in as a browser behind a TLS-terminating proxy would (X-Forwarded-Proto: https); returns the Set-Cookie lines. */
async function signInThroughProxy(proto: "https" | "http") {
  const forwarded = { "x-forwarded-proto": proto };
  const csrf = await fetch(`${server().baseUrl}/api/auth/csrf`, { headers: forwarded });
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const cookie = csrf.headers
    .getSetCookie()
    .map((line) => line.split(";")[0])
    .join("; ");
  const response = await fetch(`${server().baseUrl}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { ...forwarded, "content-type": "application/x-www-form-urlencoded", cookie },
    body: new URLSearchParams({ csrfToken, email: server().adminEmail, password: server().adminPassword, json: "true" }),
  });
  return response.headers.getSetCookie();
}

describe("Secure cookies", () => {
  it("behind an HTTPS proxy the session cookie is Secure, HttpOnly, __Secure- named, and works", async () => {
    const lines = await signInThroughProxy("https");
    const session = lines.find((line) => line.startsWith("__Secure-next-auth.session-token="));
    expect(session).toBeDefined();
    expect(session).toMatch(/;\s*Secure/i);
    expect(session).toMatch(/;\s*HttpOnly/i);
    expect(session).toMatch(/;\s*SameSite=Lax/i);
    const cookie = (session as string).split(";")[0] as string;
    const reply = await client().request("GET", "/api/v1/agents", undefined, { headers: { cookie, "x-forwarded-proto": "https" } });
    expect(reply.status).toBe(200);
  });

  it("over plain HTTP it is not marked Secure (the browser would drop it)", async () => {
    const lines = await signInThroughProxy("http");
    const session = lines.find((line) => line.startsWith("next-auth.session-token="));
    expect(session).toBeDefined();
    expect(session).not.toMatch(/;\s*Secure/i);
  });
});

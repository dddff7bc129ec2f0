// Sign-in throttling with two app instances on one database (a second server started
// on the first one's DATABASE_URL), as a PostgreSQL deployment runs them: guesses
// spread over the instances count together, so the account locks all the same
// (lib/auth/login-throttle.ts keeps the counters in the database there). A SQLite
// database is served by one instance: there each instance counts in its own memory,
// and the same guesses stay under the limit on both.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support/test-server";

const env = { SWARMDECK_LOGIN_FREE_FAILURES_PER_ACCOUNT: "3", SWARMDECK_LOGIN_FREE_FAILURES_PER_ADDRESS: "1000" };
let first: TestServer;
let second: TestServer;

beforeAll(async () => {
  first = await startTestServer({ env });
  second = await startTestServer({ env, databaseUrl: first.databaseUrl });
}, 240_000);
afterAll(async () => {
  await second?.stop();
  await first?.stop();
});

/** One sign-in through next-auth's credentials endpoint of `app`, as the login form makes it. */
async function signIn(app: TestServer, email: string, password: string) {
  const csrf = await fetch(`${app.baseUrl}/api/auth/csrf`);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const cookie = csrf.headers
    .getSetCookie()
    .map((line) => line.split(";")[0])
    .join("; ");
  const response = await fetch(`${app.baseUrl}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie },
    body: new URLSearchParams({ csrfToken, email, password, json: "true" }),
  });
  const signedIn = response.headers.getSetCookie().some((line) => line.includes("next-auth.session-token="));
  const body = (await response.json()) as { error?: { code: string; details?: { scope?: string } } };
  return { status: response.status, body, signedIn };
}

describe("sign-in throttling across instances", () => {
  it("counts the guesses made through either instance together on PostgreSQL (each its own on SQLite)", async () => {
    const email = "spread@test.local";
    const password = "the-right-password";
    const created = await fetch(`${first.baseUrl}/api/v1/users`, {
      method: "POST",
      headers: { authorization: `Bearer ${first.adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ email, password, role: "operator" }),
    });
    expect(created.status).toBe(201);
    // Two failures through each instance: four in all, one past the three free ones.
    for (const app of [first, second, first, second]) expect((await signIn(app, email, "guess")).status).toBe(401);
    const attempt = await signIn(first, email, password);
    if (first.store === "postgresql") {
      expect(attempt.status).toBe(429);
      expect(attempt.body.error).toMatchObject({ code: "rate_limited", details: { scope: "account" } });
      expect(attempt.signedIn).toBe(false);
    } else {
      expect(attempt.signedIn).toBe(true);
    }
  });
});

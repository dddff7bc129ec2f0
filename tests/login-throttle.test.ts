// Sign-in throttling (issue 15, point 2): per account and per address, with
// backoff, a 429 in the one error shape before any password is checked. Its own
// server, with small limits, so the shared test server's address is never locked.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support/test-server";

let app: TestServer;

beforeAll(async () => {
  app = await startTestServer({
    env: { SWARMDECK_LOGIN_FREE_FAILURES_PER_ACCOUNT: "3", SWARMDECK_LOGIN_FREE_FAILURES_PER_ADDRESS: "10" },
  });
});
afterAll(() => app?.stop());

/** One sign-in through next-auth's credentials endpoint, as the login form makes it. */
async function signIn(email: string, password: string) {
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
  return { status: response.status, body: (await response.json()) as any, retryAfter: response.headers.get("retry-after"), signedIn };
}

async function createUser(email: string, password: string) {
  const response = await fetch(`${app.baseUrl}/api/v1/users`, {
    method: "POST",
    headers: { authorization: `Bearer ${app.adminToken}`, "content-type": "application/json" },
    body: JSON.stringify({ email, password, role: "operator" }),
  });
  expect(response.status).toBe(201);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("sign-in throttling", () => {
  it("locks an account after its free failures, longer each time, and the right password waits too", async () => {
    const email = "target@test.local";
    const password = "the-right-password";
    await createUser(email, password);
    for (let i = 0; i < 3; i++) {
      const reply = await signIn(email, `guess-${i}`);
      expect(reply.status).toBe(401);
      expect(reply.signedIn).toBe(false);
    }
    expect((await signIn(email, "guess-3")).status).toBe(401); // the 4th failure earns the first lock
    const locked = await signIn(email, password);
    expect(locked.status).toBe(429);
    expect(locked.signedIn).toBe(false);
    expect(locked.retryAfter).toBe("1");
    expect(locked.body.error).toMatchObject({ code: "rate_limited", details: { scope: "account", retryAfterSeconds: 1 } });
    expect(locked.body.url).toContain("/login?error=TooManyAttempts");

    await sleep(1_100);
    expect((await signIn(email, "guess-4")).status).toBe(401); // allowed again, and the 5th failure doubles the lock
    const longer = await signIn(email, password);
    expect(longer.status).toBe(429);
    expect(longer.retryAfter).toBe("2");

    await sleep(2_100);
    const through = await signIn(email, password);
    expect(through.signedIn).toBe(true);
    // A success clears the account's record: the next wrong password is a plain 401 again.
    expect((await signIn(email, "guess-5")).status).toBe(401);
  });

  it("counts guesses at unknown emails like any other, and locks the address that spreads guesses over accounts", async () => {
    const known = "bystander@test.local";
    await createUser(known, "bystander-password");
    // 6 failures so far from this address (previous test); 4 more at different, unknown emails stay free.
    for (let i = 0; i < 4; i++) expect((await signIn(`nobody-${i}@test.local`, "guess")).status).toBe(401);
    expect((await signIn("nobody-4@test.local", "guess")).status).toBe(401); // the 11th failure locks the address
    const locked = await signIn(known, "bystander-password");
    expect(locked.status).toBe(429);
    expect(locked.body.error.details.scope).toBe("address");
    expect(locked.signedIn).toBe(false);
  });
});

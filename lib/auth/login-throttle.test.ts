import { describe, expect, it } from "vitest";
import { LOGIN_POLICIES, lockAfterFailure, loginLock, recordLoginFailure, recordLoginSuccess } from "./login-throttle";

describe("sign-in backoff", () => {
  it("lets the free failures through, then doubles the lock up to the ceiling", () => {
    const policy = { freeFailures: 5, firstLockMs: 1000, maxLockMs: 15 * 60_000, forgetAfterMs: 1 };
    expect([1, 5].map((n) => lockAfterFailure(n, policy))).toEqual([0, 0]);
    expect([6, 7, 8, 10].map((n) => lockAfterFailure(n, policy))).toEqual([1000, 2000, 4000, 16000]);
    expect(lockAfterFailure(54, policy)).toBe(15 * 60_000);
  });

  it("locks an account after its free failures, from any address; a success clears it", async () => {
    const email = `someone-${Date.now()}@test.local`;
    for (let i = 0; i < LOGIN_POLICIES.account.freeFailures; i++) {
      await recordLoginFailure({ email, address: `10.0.0.${i}` });
      expect(await loginLock({ email, address: "10.0.1.1" })).toBeNull();
    }
    await recordLoginFailure({ email: email.toUpperCase(), address: "10.0.0.99" });
    expect(await loginLock({ email, address: "10.0.1.1" })).toMatchObject({ scope: "account" });
    await recordLoginSuccess({ email, address: "10.0.1.1" });
    expect(await loginLock({ email, address: "10.0.1.1" })).toBeNull();
  });

  it("locks an address that guesses at many accounts, and a success elsewhere does not clear it", async () => {
    const address = `192.0.2.${Date.now() % 250}`;
    for (let i = 0; i <= LOGIN_POLICIES.address.freeFailures; i++) {
      await recordLoginFailure({ email: `victim-${i}@test.local`, address });
    }
    expect(await loginLock({ email: "fresh@test.local", address })).toMatchObject({ scope: "address" });
    await recordLoginSuccess({ email: "fresh@test.local", address });
    expect(await loginLock({ email: "fresh@test.local", address })).toMatchObject({ scope: "address" });
  });
});

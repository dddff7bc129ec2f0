// Sign-in throttling, per account and per client address, with backoff: a few
// wrong passwords are free, then each further one locks that account (or address)
// for twice as long as the one before, up to a ceiling. A success clears the
// account's count (never the address's: one good account must not wipe the record
// of guessing at others). Counters live in this process (rate-limiter-flexible's
// memory store), which is where a one-instance SQLite deployment keeps them.
import "server-only";
import { RateLimiterMemory } from "rate-limiter-flexible";

type Scope = "account" | "address";
type Policy = { freeFailures: number; firstLockMs: number; maxLockMs: number; forgetAfterMs: number };

function envNumber(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

// Deployment can tune them; the defaults follow OWASP's guidance for interactive logins.
const POLICIES: Record<Scope, Policy> = {
  account: {
    freeFailures: envNumber("SWARMDECK_LOGIN_FREE_FAILURES_PER_ACCOUNT", 5),
    firstLockMs: 1_000,
    maxLockMs: 15 * 60_000,
    forgetAfterMs: 24 * 60 * 60_000,
  },
  address: {
    freeFailures: envNumber("SWARMDECK_LOGIN_FREE_FAILURES_PER_ADDRESS", 20),
    firstLockMs: 1_000,
    maxLockMs: 60 * 60_000,
    forgetAfterMs: 24 * 60 * 60_000,
  },
};

const failures: Record<Scope, RateLimiterMemory> = {
  account: new RateLimiterMemory({ keyPrefix: "login-fail-account", points: 1e9, duration: POLICIES.account.forgetAfterMs / 1000 }),
  address: new RateLimiterMemory({ keyPrefix: "login-fail-address", points: 1e9, duration: POLICIES.address.forgetAfterMs / 1000 }),
};
// A lock is a limiter with one point, blocked for the backoff's length.
const locks: Record<Scope, RateLimiterMemory> = {
  account: new RateLimiterMemory({ keyPrefix: "login-lock-account", points: 1, duration: 1 }),
  address: new RateLimiterMemory({ keyPrefix: "login-lock-address", points: 1, duration: 1 }),
};

export type LoginAttempt = { email: string; address: string };
export type LoginLock = { scope: Scope; retryAfterMs: number };

function keys(attempt: LoginAttempt): Record<Scope, string> {
  return { account: attempt.email.trim().toLowerCase(), address: attempt.address };
}

/** The lock in force for this account or address, if any (the longer one when both are locked). */
export async function loginLock(attempt: LoginAttempt): Promise<LoginLock | null> {
  const key = keys(attempt);
  let found: LoginLock | null = null;
  for (const scope of ["account", "address"] as const) {
    const state = await locks[scope].get(key[scope]);
    if (state && state.consumedPoints > 1 && state.msBeforeNext > 0 && (!found || state.msBeforeNext > found.retryAfterMs)) {
      found = { scope, retryAfterMs: state.msBeforeNext };
    }
  }
  return found;
}

/** The lock a failure number `count` earns: none while free, then doubling from `firstLockMs`. */
export function lockAfterFailure(count: number, policy: Policy): number {
  const over = count - policy.freeFailures;
  if (over <= 0) return 0;
  return Math.min(policy.maxLockMs, policy.firstLockMs * 2 ** Math.min(over - 1, 30));
}

export async function recordLoginFailure(attempt: LoginAttempt): Promise<void> {
  const key = keys(attempt);
  for (const scope of ["account", "address"] as const) {
    const counted = await failures[scope].penalty(key[scope], 1);
    const lockMs = lockAfterFailure(counted.consumedPoints, POLICIES[scope]);
    if (lockMs > 0) await locks[scope].block(key[scope], lockMs / 1000);
  }
}

export async function recordLoginSuccess(attempt: LoginAttempt): Promise<void> {
  const key = keys(attempt);
  await failures.account.delete(key.account);
  await locks.account.delete(key.account);
}

export const LOGIN_POLICIES = POLICIES;

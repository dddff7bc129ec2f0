// Sign-in throttling, per account and per client address, with backoff: a few
// wrong passwords are free, then each further one locks that account (or address)
// for twice as long as the one before, up to a ceiling. A success clears the
// account's count (never the address's: one good account must not wipe the record
// of guessing at others). Counters live in this process (rate-limiter-flexible's
// memory store), which is where a one-instance SQLite deployment keeps them; on
// PostgreSQL, where several instances serve one swarm, they live in the database
// ("RateLimit", prisma/postgresql/migrations/20261126110400_rate_limits), so
// an attacker cannot spread guesses over the instances.
import "server-only";
import { createHash } from "node:crypto";
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterPostgres } from "rate-limiter-flexible";
import { usesPostgres } from "@/lib/db";
import { pgPool } from "@/lib/pg";

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

type Limiters = { failures: Record<Scope, RateLimiterAbstract>; locks: Record<Scope, RateLimiterAbstract> };
let limiters: Limiters | undefined;

function limiter(keyPrefix: string, points: number, duration: number): RateLimiterAbstract {
  if (!usesPostgres()) return new RateLimiterMemory({ keyPrefix, points, duration });
  return new RateLimiterPostgres({
    storeClient: pgPool(),
    storeType: "pool",
    tableName: "RateLimit",
    tableCreated: true,
    keyPrefix,
    points,
    duration,
  });
}

function store(): Limiters {
  limiters ??= {
    failures: {
      account: limiter("login-fail-account", 1e9, POLICIES.account.forgetAfterMs / 1000),
      address: limiter("login-fail-address", 1e9, POLICIES.address.forgetAfterMs / 1000),
    },
    // A lock is a limiter with one point, blocked for the backoff's length.
    locks: {
      account: limiter("login-lock-account", 1, 1),
      address: limiter("login-lock-address", 1, 1),
    },
  };
  return limiters;
}

export type LoginAttempt = { email: string; address: string };
export type LoginLock = { scope: Scope; retryAfterMs: number };

function keys(attempt: LoginAttempt): Record<Scope, string> {
  const key = { account: attempt.email.trim().toLowerCase(), address: attempt.address };
  if (!usesPostgres()) return key;
  // The table's key is varchar(255) text: any length and any character (NUL too) fit as a hash.
  const hash = (value: string) => createHash("sha256").update(value, "utf8").digest("hex");
  return { account: hash(key.account), address: hash(key.address) };
}

/** The lock in force for this account or address, if any (the longer one when both are locked). */
export async function loginLock(attempt: LoginAttempt): Promise<LoginLock | null> {
  const key = keys(attempt);
  let found: LoginLock | null = null;
  for (const scope of ["account", "address"] as const) {
    const state = await store().locks[scope].get(key[scope]);
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
    const counted = await store().failures[scope].penalty(key[scope], 1);
    const lockMs = lockAfterFailure(counted.consumedPoints, POLICIES[scope]);
    if (lockMs > 0) await store().locks[scope].block(key[scope], lockMs / 1000);
  }
}

export async function recordLoginSuccess(attempt: LoginAttempt): Promise<void> {
  const key = keys(attempt);
  await store().failures.account.delete(key.account);
  await store().locks.account.delete(key.account);
}

export const LOGIN_POLICIES = POLICIES;

// Password hashing with scrypt from node:crypto. Its async form runs on libuv's
// thread pool, so a burst of sign-ins never stalls the event loop (bcryptjs, pure
// JavaScript, hashed on it: 8 parallel wrong logins pushed /api/health to ~0.5 s).
// Parameters are OWASP's scrypt set (N=2^15, r=8, p=3: 32 MiB, ~0.1–0.3 s).
// Hashes made by bcrypt before still verify (on the event loop, once): the caller
// re-hashes such a password with scrypt after a successful sign-in.
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import bcrypt from "bcryptjs";

export { MIN_PASSWORD_LENGTH } from "@/lib/contracts/users";

const N = 2 ** 15;
const R = 8;
const P = 3;
const KEY_BYTES = 32;
const MAXMEM = 64 * 1024 * 1024; // 128 * N * r = 32 MiB, with room

function derive(password: string, salt: Buffer, params: { n: number; r: number; p: number }): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize("NFC"), salt, KEY_BYTES, { N: params.n, r: params.r, p: params.p, maxmem: MAXMEM }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

/** `scrypt$N$r$p$salt$key` (base64url): the parameters travel with the hash, so they can change later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, { n: N, r: R, p: P });
  return ["scrypt", N, R, P, salt.toString("base64url"), key.toString("base64url")].join("$");
}

export function isLegacyHash(hash: string): boolean {
  return hash.startsWith("$2");
}

export async function verifyPassword(password: string, hash: string): Promise<boolean> {
  if (isLegacyHash(hash)) return bcrypt.compare(password, hash);
  const [scheme, n, r, p, salt, key] = hash.split("$");
  if (scheme !== "scrypt" || !salt || !key) return false;
  const expected = Buffer.from(key, "base64url");
  const actual = await derive(password, Buffer.from(salt, "base64url"), { n: Number(n), r: Number(r), p: Number(p) });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

let decoy: Promise<string> | undefined;

/**
 * The same work as checking a real password, for an unknown or disabled account:
 * the answer then takes as long as for a known one, so timing tells no one which
 * emails have accounts.
 */
export async function verifyAgainstDecoy(password: string): Promise<false> {
  decoy ??= hashPassword(randomBytes(16).toString("base64url"));
  await verifyPassword(password, await decoy);
  return false;
}

// Token secrets: generated with 256 bits of randomness, stored only as a SHA-256
// hash (a fast hash is right for high-entropy tokens; passwords use bcrypt).
import { randomBytes } from "node:crypto";
import { sha256Hex } from "@/lib/sha256";

export function generateToken(prefix: string): string {
  return `${prefix}${randomBytes(32).toString("base64url")}`;
}

export function hashToken(token: string): string {
  return sha256Hex(token);
}

/** What the UI shows of a token after creation: its prefix and first characters. */
export function tokenDisplayPrefix(token: string): string {
  return `${token.slice(0, 10)}…`;
}

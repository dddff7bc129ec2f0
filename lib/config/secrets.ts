// Secrets the app keeps under data/ when the environment does not provide them:
// the next-auth signing secret and the key that encrypts secret config values.
// Files are created once with 0600 permissions and reused by every later start.

import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { dataDir } from "./database-url";

/** data/ holds the database, secrets and the admin password: only its owner may enter it. */
export function ensurePrivateDataDir(): void {
  const dir = dataDir();
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
}

function persistedSecret(fileName: string, bytes = 32): string {
  const file = path.join(dataDir(), fileName);
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const secret = randomBytes(bytes).toString("base64url");
  writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: "wx" });
  chmodSync(file, 0o600);
  return secret;
}

export function authSecret(): string {
  return process.env.NEXTAUTH_SECRET?.trim() || persistedSecret("auth-secret");
}

/** 32 bytes for AES-256-GCM. */
export function encryptionKey(): Buffer {
  const fromEnv = process.env.SWARMDECK_ENCRYPTION_KEY?.trim();
  const material = fromEnv || persistedSecret("encryption-key");
  const key = Buffer.from(material, "base64url");
  if (key.length !== 32) throw new Error("SWARMDECK_ENCRYPTION_KEY must be 32 bytes, base64url-encoded");
  return key;
}

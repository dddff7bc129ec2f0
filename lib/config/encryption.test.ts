import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { decryptSecret, encryptSecret } from "./encryption";

describe("secret config encryption", () => {
  const key = randomBytes(32);

  it("round-trips and never stores the plaintext", () => {
    const stored = encryptSecret("hunter2-api-key", key);
    expect(stored).toMatch(/^v1:/);
    expect(stored).not.toContain("hunter2");
    expect(decryptSecret(stored, key)).toBe("hunter2-api-key");
  });

  it("uses a fresh IV each time", () => {
    expect(encryptSecret("same", key)).not.toBe(encryptSecret("same", key));
  });

  it("refuses a tampered value and a wrong key", () => {
    const stored = encryptSecret("value", key);
    const parts = stored.split(":");
    const flipped = Buffer.from(parts[3] ?? "", "base64url");
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    parts[3] = flipped.toString("base64url");
    expect(() => decryptSecret(parts.join(":"), key)).toThrow();
    expect(() => decryptSecret(stored, randomBytes(32))).toThrow();
    expect(() => decryptSecret("plain text", key)).toThrow(/not an encrypted/);
  });
});

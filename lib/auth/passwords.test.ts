import bcrypt from "bcryptjs";
import { describe, expect, it } from "vitest";
import { hashPassword, isLegacyHash, verifyAgainstDecoy, verifyPassword } from "./passwords";

// scrypt is meant to be slow (and this machine is shared): generous time per test.
describe("password hashing", { timeout: 30_000 }, () => {
  it("verifies the password it hashed and nothing else, with a fresh salt each time", async () => {
    const hash = await hashPassword("correct horse battery");
    expect(hash).toMatch(/^scrypt\$32768\$8\$3\$[\w-]+\$[\w-]+$/);
    expect(await verifyPassword("correct horse battery", hash)).toBe(true);
    expect(await verifyPassword("correct horse batterY", hash)).toBe(false);
    expect(await hashPassword("correct horse battery")).not.toBe(hash);
  });

  it("still accepts passwords stored as bcrypt hashes before, and says they need re-hashing", async () => {
    const legacy = await bcrypt.hash("an old password", 4);
    expect(isLegacyHash(legacy)).toBe(true);
    expect(await verifyPassword("an old password", legacy)).toBe(true);
    expect(await verifyPassword("another password", legacy)).toBe(false);
    expect(isLegacyHash(await hashPassword("x"))).toBe(false);
  });

  it("refuses a damaged hash instead of throwing", async () => {
    expect(await verifyPassword("anything", "scrypt$1$")).toBe(false);
    expect(await verifyPassword("anything", "")).toBe(false);
  });

  it("answers false for an unknown account: the decoy hash it checks against matches no password", async () => {
    expect(await verifyAgainstDecoy("whatever")).toBe(false);
  });
});

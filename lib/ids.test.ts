import { describe, expect, it } from "vitest";
import { newId } from "./ids";

describe("newId", () => {
  it("never repeats, across many refills of its random pool", () => {
    const ids = Array.from({ length: 5_000 }, () => newId());
    expect(new Set(ids).size).toBe(ids.length);
    // The random part alone never repeats either (the time part is shared by ids made in the same millisecond).
    expect(new Set(ids.map((id) => id.slice(-18))).size).toBe(ids.length);
  });

  it("is a cuid-like id: 'c', the time in base 36, then 72 random bits in hex", () => {
    const before = Date.now();
    const id = newId();
    const match = /^c([0-9a-z]+)([0-9a-f]{18})$/.exec(id);
    expect(match).not.toBeNull();
    const millis = Number.parseInt(match?.[1] ?? "", 36);
    expect(millis).toBeGreaterThanOrEqual(before);
    expect(millis).toBeLessThanOrEqual(Date.now());
  });

  it("sorts by the time it was made", async () => {
    const first = newId();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(newId() > first).toBe(true);
  });
});

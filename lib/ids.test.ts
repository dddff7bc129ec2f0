import { describe, expect, it, vi } from "vitest";
import { newId } from "./ids";

describe("newId", () => {
  it("never repeats, across many refills of its random pool", () => {
    const ids = Array.from({ length: 5_000 }, () => newId());
    expect(new Set(ids).size).toBe(ids.length);
    // The random part alone never repeats either (the time part is shared by ids made in the same millisecond).
    expect(new Set(ids.map((id) => id.slice(-18))).size).toBe(ids.length);
  });

  it("takes the next 9 bytes of the random stream for each id, none twice, across refills", async () => {
    // A stand-in CSPRNG whose stream counts up, byte by byte, over every fill: an id
    // that skipped, reused or overlapped bytes would show a different run.
    let drawn = 0;
    vi.resetModules();
    vi.doMock("node:crypto", async (importOriginal) => ({
      ...(await importOriginal<typeof import("node:crypto")>()),
      randomFillSync: (buffer: Buffer) => {
        for (let i = 0; i < buffer.length; i += 1) buffer[i] = (drawn + i) & 0xff;
        drawn += buffer.length;
        return buffer;
      },
    }));
    try {
      const { newId: counted } = await import("./ids");
      for (let n = 0; n < 1_100; n += 1) {
        const expected = Buffer.from(Array.from({ length: 9 }, (_, j) => (n * 9 + j) & 0xff)).toString("hex");
        expect(counted().slice(-18)).toBe(expected);
      }
    } finally {
      vi.doUnmock("node:crypto");
      vi.resetModules();
    }
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

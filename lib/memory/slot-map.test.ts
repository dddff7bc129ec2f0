import { describe, expect, it } from "vitest";
import { SlotMap } from "./slot-map";

describe("SlotMap", () => {
  it("answers like a Map from memory id to slot, for dense ids, stray large ids and deletes", () => {
    const map = new SlotMap();
    const reference = new Map<number, number>();
    const ids = [...Array.from({ length: 50_000 }, (_, i) => i + 1), 2 ** 40, 3_000_000_000, 1_500_000, 70_000];
    ids.forEach((id, slot) => {
      map.set(id, slot);
      reference.set(id, slot);
    });
    for (let id = 1; id <= 50_000; id += 7) {
      map.delete(id);
      reference.delete(id);
    }
    map.delete(2 ** 40);
    reference.delete(2 ** 40);
    map.set(3_000_000_000, 99);
    reference.set(3_000_000_000, 99);
    expect(map.size).toBe(reference.size);
    for (const id of [...ids, 0, 50_001, 2 ** 41, -5]) {
      expect(map.get(id)).toBe(reference.get(id) ?? -1);
      expect(map.has(id)).toBe(reference.has(id));
    }
  });

  it("does not allocate an array up to a stray large id", () => {
    const map = new SlotMap();
    map.set(1, 0);
    map.set(2 ** 30 + 5, 1);
    expect(map.get(2 ** 30 + 5)).toBe(1);
    expect(map.bytes).toBeLessThan(1024 * 1024);
  });
});

import { describe, expect, it } from "vitest";
import { idleCollector } from "./idle-memory.mjs";

describe("idleCollector", () => {
  it("collects once when the server goes quiet after work, never while it works, and not again until the next burst", () => {
    const decide = idleCollector();
    // CPU ms used per interval: start-up, a quiet spell, a burst of requests, a long quiet spell, a trickle, a burst.
    const intervals = [2000, 40, 30, 900, 1500, 700, 20, 10, 5, 300, 60, 250, 2500, 80];
    const collectedAt = intervals.flatMap((cpu, i) => (decide.tick(cpu) ? [i] : []));
    expect(collectedAt).toEqual([1, 6, 13]);
  });
});

import { describe, expect, it } from "vitest";
import { CrashGuard } from "./crash-guard";

const guard = () => new CrashGuard({ after: 3, quickMs: 10_000, pauseMs: 60_000, maxPauseMs: 300_000 });

describe("the crash guard (worker/README.md, 'When the worker itself is broken')", () => {
  it("pauses claiming after three quick failures in a row, doubling while they go on, up to the cap", () => {
    const g = guard();
    expect([g.record("failed", 200), g.record("failed", 900)]).toEqual([0, 0]);
    expect(g.record("failed", 50)).toBe(60_000);
    expect(g.record("failed", 50)).toBe(120_000);
    expect(g.record("failed", 50)).toBe(240_000);
    expect(g.record("failed", 50)).toBe(300_000);
    expect(g.record("failed", 50)).toBe(300_000);
  });

  it("starts over after a completed task, a task the agent gave back, or a failure that took its time", () => {
    const g = guard();
    g.record("failed", 10);
    g.record("failed", 10);
    g.record("released", 10);
    expect(g.quickFailures).toBe(0);
    g.record("failed", 10);
    g.record("failed", 10);
    g.record("completed", 10);
    expect([g.record("failed", 10), g.record("failed", 10)]).toEqual([0, 0]);
    g.record("failed", 10_000);
    expect(g.quickFailures).toBe(0);
    expect([g.record("failed", 10), g.record("failed", 10), g.record("failed", 10)]).toEqual([0, 0, 60_000]);
  });

  it("is not moved by a cancelled or lost task, and never pauses when turned off", () => {
    const g = guard();
    g.record("failed", 10);
    g.record("failed", 10);
    g.record("cancelled", 10);
    g.record("lost", 10);
    expect(g.record("failed", 10)).toBe(60_000);
    const off = new CrashGuard({ after: 0, quickMs: 10_000, pauseMs: 60_000 });
    expect(Array.from({ length: 10 }, () => off.record("failed", 1))).toEqual(Array(10).fill(0));
  });
});

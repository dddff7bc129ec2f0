import { describe, expect, it } from "vitest";
import { cronProblem, describeCron, intervalProblem, latestSlotAtOrBefore, nextSlot, shortestGap } from "./cron";

describe("cron", () => {
  it("finds the next slot and the latest past slot, time zone aware", () => {
    const monday9 = Date.parse("2030-01-07T09:00:00Z");
    expect(nextSlot("0 9 * * 1", "UTC", monday9 - 1)).toBe(monday9);
    expect(nextSlot("0 9 * * 1", "UTC", monday9)).toBe(monday9 + 7 * 86_400_000);
    expect(latestSlotAtOrBefore("0 9 * * 1", "UTC", monday9)).toBe(monday9);
    expect(latestSlotAtOrBefore("0 9 * * 1", "UTC", monday9 + 21 * 86_400_000 + 1)).toBe(monday9 + 21 * 86_400_000);
    expect(new Date(nextSlot("0 9 * * *", "America/New_York", Date.parse("2030-01-07T00:00:00Z"))).toISOString()).toBe(
      "2030-01-07T14:00:00.000Z",
    );
  });

  it("explains what is wrong", () => {
    expect(cronProblem("0 9 * * 1", "UTC")).toBeNull();
    expect(cronProblem("61 * * * *", "UTC")).toMatch(/0-59/);
    expect(cronProblem("* *", "UTC")).toMatch(/5 fields/);
    expect(cronProblem("0 0 9 * * 1", "UTC")).toBe(
      "Six-field cron expressions (with seconds) are not supported: use 5 fields, minute hour day-of-month month day-of-week",
    );
    expect(cronProblem("*/30 * * * * *", "UTC")).toMatch(/^Six-field/);
    expect(cronProblem("0 9 * * 1", "Nowhere/Land")).toMatch(/time zone/);
  });

  it("reads the common shapes aloud", () => {
    expect(describeCron("0 9 * * 1")).toBe("every Monday at 09:00");
    expect(describeCron("0 18 * * *")).toBe("every day at 18:00");
    expect(describeCron("*/15 * * * *")).toBe("every 15 minutes");
    expect(describeCron("0 9 * * 1-5")).toBe("every weekday at 09:00");
    expect(describeCron("0 9 1 1 *")).toBeNull();
  });

  it("knows how often an expression fires, and refuses one that fires more often than the minimum", () => {
    const from = Date.parse("2030-01-07T00:00:00Z");
    expect(shortestGap("*/5 * * * *", "UTC", from)).toBe(5 * 60_000);
    expect(shortestGap("0 9 * * 1", "UTC", from)).toBe(7 * 86_400_000);
    // Irregular: two slots a minute apart once a day.
    expect(shortestGap("0,1 9 * * *", "UTC", from)).toBe(60_000);
    const fifteen = 15 * 60_000;
    expect(intervalProblem("* * * * *", "UTC", fifteen, from)).toBe(
      "This fires every minute; a schedule may fire at most every 15 minutes (SCHEDULE_MIN_INTERVAL_MINUTES)",
    );
    expect(intervalProblem("*/10 * * * *", "UTC", fifteen, from)).toMatch(/every 10 minutes/);
    expect(intervalProblem("*/15 * * * *", "UTC", fifteen, from)).toBeNull();
    expect(intervalProblem("0 18 * * *", "UTC", fifteen, from)).toBeNull();
  });
});

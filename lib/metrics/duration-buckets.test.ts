import { describe, expect, it } from "vitest";
import {
  BUCKETS,
  bucketBounds,
  bucketMidpoint,
  bucketOf,
  emptyHistogram,
  fromLegacyHistogram,
  parseHistogram,
  quantile,
} from "./duration-buckets";

describe("duration buckets", () => {
  it("puts each duration inside its bucket's bounds", () => {
    for (const ms of [0, 999, 1000, 1189, 1190, 5000, 60_000, 3_600_000, 86_400_000]) {
      const [lower, upper] = bucketBounds(bucketOf(ms));
      expect(ms).toBeGreaterThanOrEqual(lower);
      expect(ms).toBeLessThan(upper);
    }
    expect(bucketOf(10 ** 12)).toBe(BUCKETS - 1);
  });

  it("reports quantiles within the documented 9.05 % of the true value", () => {
    // Every scale a swarm sees: scripted tasks of a few milliseconds, real ones of minutes, day-long ones.
    for (const ms of [1.2, 5, 9, 19, 250, 999, 1500, 12_345, 60_000, 3_600_000, 86_400_000, 5 * 86_400_000]) {
      const mid = bucketMidpoint(bucketOf(ms));
      expect(Math.abs(mid - ms) / ms).toBeLessThanOrEqual(0.0906);
    }
  });

  it("takes the nearest-rank median and p90", () => {
    const hist = emptyHistogram();
    hist[bucketOf(2000)] = 5;
    hist[bucketOf(60_000)] = 4;
    hist[bucketOf(600_000)] = 1;
    // Nearest rank of ten: the median is the 5th value (2 s), p90 the 9th (60 s), p100 the 10th (600 s),
    // each reported within the documented 9.05 %.
    const near = (reported: number | null, truth: number) =>
      expect(Math.abs((reported as number) - truth) / truth).toBeLessThanOrEqual(0.0905);
    near(quantile(hist, 0.5), 2000);
    near(quantile(hist, 0.9), 60_000);
    near(quantile(hist, 1), 600_000);
    expect(quantile(emptyHistogram(), 0.5)).toBeNull();
  });

  it("reads a day of 5–19 ms tasks as about 9 ms, not as one sub-second bucket", () => {
    const hist = emptyHistogram();
    for (const ms of [5, 6, 7, 8, 9, 9, 10, 12, 14, 19, 19]) hist[bucketOf(ms)]! += 1;
    const median = quantile(hist, 0.5) as number;
    expect(Math.abs(median - 9) / 9).toBeLessThanOrEqual(0.0906);
    expect(quantile(hist, 1)).toBeLessThan(21);
  });

  it("reads histograms of the earlier 80-bucket layout (from 1 s) at their durations", () => {
    const legacy = new Array(80).fill(0);
    legacy[0] = 2; // under 1 s, no finer
    legacy[1] = 3; // [1 s, 1.19 s)
    legacy[17] = 4; // [16 s, 19 s)
    legacy[79] = 1; // open-ended
    const hist = fromLegacyHistogram(legacy);
    expect(hist).toHaveLength(BUCKETS);
    expect(hist.reduce((a, b) => a + b, 0)).toBe(10);
    const near = (ms: number, count: number) => {
      const at = hist.indexOf(count);
      expect(Math.abs(bucketMidpoint(at) - ms) / ms).toBeLessThanOrEqual(0.0906);
    };
    near(500, 2);
    near(1090, 3);
    near(17_450, 4);
    expect(hist[BUCKETS - 1]).toBe(1);
    expect(parseHistogram(JSON.stringify(legacy))).toEqual(hist);
  });
});

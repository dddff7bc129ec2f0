import { describe, expect, it } from "vitest";
import { BUCKETS, bucketBounds, bucketMidpoint, bucketOf, emptyHistogram, quantile } from "./duration-buckets";

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
    for (const ms of [1500, 12_345, 60_000, 3_600_000]) {
      const mid = bucketMidpoint(bucketOf(ms));
      expect(Math.abs(mid - ms) / ms).toBeLessThanOrEqual(0.0906);
    }
  });

  it("takes the nearest-rank median and p90", () => {
    const hist = emptyHistogram();
    hist[bucketOf(2000)] = 5;
    hist[bucketOf(60_000)] = 4;
    hist[bucketOf(600_000)] = 1;
    expect(quantile(hist, 0.5)).toBe(bucketMidpoint(bucketOf(2000)));
    expect(quantile(hist, 0.9)).toBe(bucketMidpoint(bucketOf(60_000)));
    expect(quantile(hist, 1)).toBe(bucketMidpoint(bucketOf(600_000)));
    expect(quantile(emptyHistogram(), 0.5)).toBeNull();
  });
});

// Log-scale duration histogram shared by the rollups (TaskDailyRollup.durationHist)
// and the metric queries.
//
// Bucket 0 holds durations under 1 ms; bucket i (1..BUCKETS-1) holds
// [1 ms · r^(i-1), 1 ms · r^i) with r = 2^(1/4) ≈ 1.189, and the last bucket is
// open-ended (≥ about 8.6 days). A quantile is reported as the geometric midpoint
// of the bucket it falls in, so its relative error is at most √r − 1 ≈ 9.05 % at
// every scale, from a 5 ms scripted task to a day-long one (bucket 0 reports
// 0.5 ms). Means are exact (sum / count).
//
// Histograms written before this layout (80 buckets from 1 s, everything under
// 1 s in bucket 0) are converted by the migration 20261124220000_duration_buckets_ms
// and, should one still be read, by parseHistogram.

export const BUCKETS = 120;
const BASE_MS = 1;
const STEPS_PER_DOUBLING = 4;
/** The earlier layout: 80 buckets, bucket 0 under 1 s, bucket i from 1 s · r^(i-1). */
const LEGACY_BUCKETS = 80;

/** The bucket a duration falls in. */
export function bucketOf(durationMs: number): number {
  if (!Number.isFinite(durationMs) || durationMs < BASE_MS) return 0;
  const index = Math.floor(Math.log2(durationMs / BASE_MS) * STEPS_PER_DOUBLING + 1e-9) + 1;
  return Math.min(index, BUCKETS - 1);
}

/** [lower, upper) of a bucket in ms (upper is Infinity for the last one). */
export function bucketBounds(index: number): [number, number] {
  if (index <= 0) return [0, BASE_MS];
  const lower = BASE_MS * 2 ** ((index - 1) / STEPS_PER_DOUBLING);
  const upper = index >= BUCKETS - 1 ? Number.POSITIVE_INFINITY : BASE_MS * 2 ** (index / STEPS_PER_DOUBLING);
  return [lower, upper];
}

/** The value reported for a bucket: its geometric midpoint (0.5 ms for bucket 0), to 0.01 ms. */
export function bucketMidpoint(index: number): number {
  if (index <= 0) return BASE_MS / 2;
  const [lower] = bucketBounds(index);
  return Math.round(lower * 2 ** (1 / (2 * STEPS_PER_DOUBLING)) * 100) / 100;
}

/**
 * An 80-bucket histogram of the earlier layout in this one: each earlier bucket i ≥ 1 is
 * counted where its midpoint (1 s · r^(i - 1/2)) falls here, which is bucket i + 40; its
 * bucket 0 (anything under 1 s, no finer) is counted at 500 ms, bucket 36.
 */
export function fromLegacyHistogram(legacy: number[]): number[] {
  const hist = emptyHistogram();
  legacy.forEach((count, i) => {
    const at = i === 0 ? bucketOf(500) : bucketOf(1000 * 2 ** ((i - 0.5) / STEPS_PER_DOUBLING));
    hist[at] = (hist[at] ?? 0) + (Number.isFinite(count) ? count : 0);
  });
  return hist;
}

export function emptyHistogram(): number[] {
  return new Array(BUCKETS).fill(0);
}

/** Parses a stored histogram; anything malformed reads as empty. */
export function parseHistogram(text: string | null | undefined): number[] {
  const hist = emptyHistogram();
  if (!text) return hist;
  try {
    const parsed: unknown = JSON.parse(text);
    if (Array.isArray(parsed) && parsed.length === LEGACY_BUCKETS) return fromLegacyHistogram(parsed.map(Number));
    if (Array.isArray(parsed)) {
      for (let i = 0; i < Math.min(parsed.length, BUCKETS); i += 1) {
        const value = Number(parsed[i]);
        if (Number.isFinite(value)) hist[i] = value;
      }
    }
  } catch {
    // treated as empty
  }
  return hist;
}

export function addInto(target: number[], source: number[]): number[] {
  for (let i = 0; i < BUCKETS; i += 1) target[i] = (target[i] ?? 0) + (source[i] ?? 0);
  return target;
}

/** The q-quantile (0..1) of a histogram, or null when it is empty. */
export function quantile(hist: number[], q: number): number | null {
  const total = hist.reduce((sum, count) => sum + count, 0);
  if (total === 0) return null;
  // Nearest rank: the smallest value with at least ceil(q·n) values at or below it.
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (let i = 0; i < hist.length; i += 1) {
    seen += hist[i] ?? 0;
    if (seen >= rank) return bucketMidpoint(i);
  }
  return bucketMidpoint(hist.length - 1);
}

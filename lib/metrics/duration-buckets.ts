// Log-scale duration histogram shared by the rollups (TaskDailyRollup.durationHist)
// and the metric queries.
//
// Bucket 0 holds durations under 1 s; bucket i (1..BUCKETS-1) holds
// [1 s · r^(i-1), 1 s · r^i) with r = 2^(1/4) ≈ 1.189, and the last bucket is
// open-ended (≥ about 8 days). A quantile is reported as the geometric midpoint
// of the bucket it falls in, so its relative error is at most √r − 1 ≈ 9.05 %
// (bucket 0 reports 500 ms, ±500 ms). Means are exact (sum / count).

export const BUCKETS = 80;
const BASE_MS = 1000;
const STEPS_PER_DOUBLING = 4;

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

/** The value reported for a bucket: its geometric midpoint (500 ms for bucket 0). */
export function bucketMidpoint(index: number): number {
  if (index <= 0) return BASE_MS / 2;
  const [lower] = bucketBounds(index);
  return Math.round(lower * 2 ** (1 / (2 * STEPS_PER_DOUBLING)));
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

// Every score a search returns lies on one 0..1 scale, whatever the mode
// (see README.md in this folder for the reasoning and the numbers).
//
//   keyword  = coverage × (0.8 + 0.2 × bm25 strength)
//   vector   = max(0, cosine similarity of the unit vectors)
//   hybrid   = 0.8 × max(keyword, vector) + 0.2 × mean(keyword, vector)
//   score    = relevance × ranking factor (0.8..1: recency, access count, source)
import type { MemorySource } from "@/lib/contracts/memory";

/** The default injection threshold for task prompts (env SWARMDECK_MEMORY_INJECT_THRESHOLD). */
export const DEFAULT_INJECT_THRESHOLD = 0.4;

/**
 * A retrieval is a hit when its best result reached the threshold: the one the search
 * used (prompt injections record theirs), else the injection threshold now. A search
 * with no result is a miss. The one definition of the hit rate, for /memory's health
 * panel (lib/memory/health.ts) and /metrics (lib/metrics/memory-metrics.ts).
 */
export function isRetrievalHit(row: { topScore: number | null; threshold: number | null }, injectThreshold: number): boolean {
  return row.topScore !== null && row.topScore >= (row.threshold ?? injectThreshold) - 1e-9;
}

const clamp01 = (value: number) => (Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0);

/**
 * Keyword relevance. `coverage` is the share of the query's distinct meaningful
 * stems that the memory holds (0..1, absolute: it does not depend on the other
 * results). `bm25` is FTS5's bm25() (negative; more negative = stronger); its
 * strength s/(s+10) only separates memories of equal coverage.
 */
export function keywordScore(coverage: number, bm25: number | null): number {
  const strength = bm25 === null ? 0 : -bm25 / (-bm25 + 10);
  return clamp01(clamp01(coverage) * (0.8 + 0.2 * clamp01(strength)));
}

/** Vector relevance: the cosine of two unit vectors, negatives cut to 0. */
export function vectorScore(cosine: number): number {
  return clamp01(cosine);
}

/**
 * Vector relevance of the embedded default (averaged word vectors): any two
 * texts of English prose already sit at a cosine of ~0.6, so the scale starts
 * there; a cosine of 0.95 or more reads as a full match.
 */
export const LOCAL_COSINE_FLOOR = 0.6;
export function localVectorScore(cosine: number): number {
  return clamp01((cosine - LOCAL_COSINE_FLOOR) / (0.95 - LOCAL_COSINE_FLOOR));
}

/**
 * Hybrid fusion of the two relevances of one memory. Max-dominant: a paraphrase
 * found only by meaning keeps most of its vector score, an exact keyword hit keeps
 * most of its keyword score, and agreement of both lifts a memory above either.
 */
export function fuseScores(keyword: number, vector: number): number {
  const k = clamp01(keyword);
  const v = clamp01(vector);
  return clamp01(0.8 * Math.max(k, v) + 0.2 * ((k + v) / 2));
}

export const SOURCE_WEIGHTS: Record<MemorySource, number> = {
  lead_feedback: 1,
  task_failure: 0.95,
  reflection: 0.9,
  manual: 0.9,
  file_index: 0.85,
  task_completion: 0.8,
  session_summary: 0.7,
};

const RECENCY_HALF_LIFE_DAYS = 30;

/**
 * The ranking factor, 0.8..1: 40% recency (half-life 30 days), 20% access count
 * (saturating at about 20 reads), 40% source weight. Multiplying by it never
 * pushes a score out of 0..1 and moves it by at most a fifth.
 */
export function rankingFactor(args: { source: string; createdAt: number; accessCount: number; now?: number }): number {
  const ageDays = Math.max(0, ((args.now ?? Date.now()) - args.createdAt) / 86_400_000);
  const recency = 0.5 ** (ageDays / RECENCY_HALF_LIFE_DAYS);
  const access = Math.min(1, Math.log1p(Math.max(0, args.accessCount)) / Math.log1p(20));
  const source = SOURCE_WEIGHTS[args.source as MemorySource] ?? 0.8;
  return 0.8 + 0.2 * (0.4 * recency + 0.2 * access + 0.4 * source);
}

/** The final 0..1 score of one result. */
export function finalScore(relevance: number, factor: number): number {
  return clamp01(clamp01(relevance) * Math.min(1, Math.max(0.8, factor)));
}

/**
 * Hybrid fusion with the embedded default's vector half: averaged word vectors
 * are a weak signal on their own, so they add to the keyword relevance (which
 * already credits related words) instead of dominating it.
 */
const LOCAL_VECTOR_WEIGHT = 0.15;
export function fuseLocal(keyword: number, vector: number): number {
  const k = clamp01(keyword);
  return clamp01(k + LOCAL_VECTOR_WEIGHT * clamp01(vector) * (1 - k));
}

import { describe, expect, it } from "vitest";
import { finalScore, fuseScores, keywordScore, rankingFactor, vectorScore } from "./scoring";
import { coverage as coverageForTest, queryStems } from "./text";

describe("score scale", () => {
  it("keeps every mode's score within 0..1, even for extreme inputs", () => {
    for (const coverage of [-1, 0, 0.3, 1, 5, Number.NaN]) {
      for (const bm25 of [null, 0, -0.01, -5, -1e9, 3]) {
        const score = keywordScore(coverage, bm25);
        expect(score).toBeGreaterThanOrEqual(0);
        expect(score).toBeLessThanOrEqual(1);
      }
    }
    for (const cosine of [-1, -0.2, 0, 0.5, 1, 1.0001, Number.NaN]) {
      expect(vectorScore(cosine)).toBeGreaterThanOrEqual(0);
      expect(vectorScore(cosine)).toBeLessThanOrEqual(1);
    }
    expect(finalScore(2, 5)).toBe(1);
    expect(finalScore(-1, 0.9)).toBe(0);
  });

  it("makes keyword scores absolute: coverage decides, bm25 only separates ties", () => {
    expect(keywordScore(1, -20)).toBeGreaterThan(0.85);
    expect(keywordScore(0.5, -20)).toBeLessThan(0.5);
    expect(keywordScore(0.5, -30)).toBeGreaterThan(keywordScore(0.5, -3));
    expect(keywordScore(0, -30)).toBe(0);
  });

  it("moves a score by at most a fifth for ranking (recency, access, source)", () => {
    const now = Date.now();
    const fresh = rankingFactor({ source: "lead_feedback", createdAt: now, accessCount: 50, now });
    const stale = rankingFactor({ source: "session_summary", createdAt: now - 400 * 86_400_000, accessCount: 0, now });
    expect(fresh).toBeLessThanOrEqual(1);
    expect(stale).toBeGreaterThanOrEqual(0.8);
    expect(fresh).toBeGreaterThan(stale);
  });

  it("counts a long query as covered once 2·√n of its stems match", () => {
    expect(coverageForTest(queryStems("deploying tokens"), "the deploy token")).toBe(1);
    expect(coverageForTest(["a1", "a2", "a3", "a4"], "a1 a2")).toBe(0.5);
    const many = Array.from({ length: 36 }, (_, i) => `w${i}`);
    expect(coverageForTest(many, many.slice(0, 12).join(" "))).toBe(1);
  });
});

describe("hybrid fusion", () => {
  it("keeps most of a one-sided hit and lifts agreement above either side", () => {
    expect(fuseScores(0, 0.8)).toBeCloseTo(0.72, 5);
    expect(fuseScores(0.9, 0)).toBeCloseTo(0.81, 5);
    expect(fuseScores(0.7, 0.7)).toBeCloseTo(0.7, 5);
    expect(fuseScores(0.6, 0.8)).toBeGreaterThan(fuseScores(0, 0.8));
    expect(fuseScores(1, 1)).toBe(1);
    expect(fuseScores(0, 0)).toBe(0);
  });

  it("is monotone: a better keyword or vector score never lowers the fused score", () => {
    for (let k = 0; k <= 1; k += 0.1) {
      for (let v = 0; v <= 0.9; v += 0.1) {
        expect(fuseScores(k, v + 0.1)).toBeGreaterThanOrEqual(fuseScores(k, v));
        expect(fuseScores(v + 0.1, k)).toBeGreaterThanOrEqual(fuseScores(v, k));
      }
    }
  });
});

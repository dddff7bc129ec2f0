import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compileKernel, OUTPUT } from "../../scripts/build-vector-kernel.mjs";
import { fakeEmbedding } from "../../tests/support/fake-openai";
import { rng as seeded, zipfCorpus } from "../../tests/support/zipf-corpus";
import { cosine, cosineWithUnit, fromBytes, KERNEL_FILE, normalize, toBytes, VectorIndex, vectorFromBytes } from "./vector-index";

function rng(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32 - 0.5;
  };
}

/** Unit vectors with the shape of real embeddings: topics, subtopics within them, items within those. */
function corpus(n: number, dims: number, seed = 1) {
  const random = rng(seed);
  const topics = Array.from({ length: 20 }, () => Float32Array.from({ length: dims }, random));
  const subtopics = Array.from({ length: 200 }, (_, i) =>
    Float32Array.from({ length: dims }, (_, d) => topics[i % 20]![d]! + 0.6 * random()),
  );
  return Array.from({ length: n }, () => {
    const sub = subtopics[Math.floor((random() + 0.5) * 200) % 200]!;
    const v = Float32Array.from({ length: dims }, (_, d) => sub[d]! + 0.35 * random());
    normalize(v);
    return v;
  });
}

describe("VectorIndex", () => {
  it("puts the exact top 10 among its best 300 estimates (recall >= 0.98), which callers re-rank exactly", () => {
    const dims = 256;
    const vectors = corpus(10_000, dims);
    const index = new VectorIndex(dims);
    vectors.forEach((vector, id) => {
      index.add(id + 1, vector, { agentId: null, scope: "swarm" });
    });
    let found = 0;
    const noise = rng(42);
    // Queries near stored memories (a paraphrase lands near the lesson it asks about).
    const queries = Array.from({ length: 50 }, (_, i) => {
      const q = Float32Array.from(vectors[i * 97]!, (x) => x + 0.05 * noise());
      normalize(q);
      return q;
    });
    for (const query of queries) {
      const exact = vectors
        .map((vector, i) => ({ id: i + 1, c: cosine(query, vector) }))
        .sort((a, b) => b.c - a.c)
        .slice(0, 10)
        .map((hit) => hit.id);
      const got = new Set(index.search(query, { limit: 300, filter: { agent: true, swarm: true, agentCode: -1 } }).map((hit) => hit.id));
      found += exact.filter((id) => got.has(id)).length;
    }
    expect(found / (queries.length * 10)).toBeGreaterThanOrEqual(0.98);
  }, 60_000);

  it("applies visibility inside the scan: a worker sees its agent scope and the swarm only", () => {
    const index = new VectorIndex(32);
    const v = Float32Array.from({ length: 32 }, (_, i) => (i % 3) - 1);
    index.add(1, v, { agentId: "a", scope: "agent" });
    index.add(2, v, { agentId: "b", scope: "agent" });
    index.add(3, v, { agentId: "b", scope: "swarm" });
    const ids = (filter: { agent: boolean; swarm: boolean; agentCode: number }) =>
      index
        .search(v, { limit: 10, filter })
        .map((hit) => hit.id)
        .sort();
    expect(ids({ agent: true, swarm: true, agentCode: index.findAgentCode("a") })).toEqual([1, 3]);
    expect(ids({ agent: true, swarm: false, agentCode: -1 })).toEqual([1, 2]);
    expect(ids({ agent: true, swarm: true, agentCode: index.findAgentCode("nobody") })).toEqual([3]);
  });

  it("removes, replaces and compacts across storage pages without losing live vectors", () => {
    const dims = 64;
    const vectors = corpus(9000, dims, 7);
    const index = new VectorIndex(dims);
    vectors.forEach((vector, i) => {
      index.add(i + 1, vector, { agentId: null, scope: "swarm" });
    });
    for (let id = 1; id <= 9000; id += 2) index.remove(id);
    // Re-adding fills the last page, then compacts (half the slots are free) instead of growing.
    const bytesBefore = index.bytes;
    vectors.forEach((vector, i) => {
      if (i % 2 === 0) index.add(10_000 + i, vector, { agentId: null, scope: "swarm" });
    });
    expect(index.size).toBe(9000);
    expect(index.bytes).toBe(bytesBefore);
    const all = { agent: true, swarm: true, agentCode: -1 };
    for (let i = 0; i < 9000; i += 181) {
      // The vector itself is among the best estimates, under the id it lives under now.
      const top = index.search(vectors[i]!, { limit: 20, filter: all }).map((hit) => hit.id);
      expect(top).toContain(i % 2 === 0 ? 10_000 + i : i + 1);
      expect(top).not.toContain(i % 2 === 0 ? i + 1 : 10_000 + i);
    }
    const everything = new Set(index.search(vectors[0]!, { limit: 9000, candidates: 9000, filter: all }).map((hit) => hit.id));
    expect(everything.size).toBe(9000);
    for (let id = 1; id <= 9000; id += 2) expect(everything.has(id)).toBe(false);
  });

  it("grows a page at a time: storage is never more than one page past what is used", () => {
    const index = new VectorIndex(32);
    // Per slot at 32 dims: sign and magnitude words (4 + 4), two levels (4 + 4), id, agent, scope (4 + 4 + 1),
    // the search's distance (2).
    const pageBytes = 4096 * (4 + 4 + 4 + 4 + 4 + 4 + 1 + 2);
    const random = rng(3);
    const vector = () => Float32Array.from({ length: 32 }, random);
    expect(index.bytes).toBe(0);
    index.add(1, vector(), { agentId: null, scope: "swarm" });
    expect(index.bytes).toBe(pageBytes);
    for (let id = 2; id <= 10_000; id++) index.add(id, vector(), { agentId: "a", scope: "agent" });
    expect(index.bytes).toBe(3 * pageBytes);
    expect(index.size).toBe(10_000);
  });

  it("finds each stored vector first, over every word of its code and every page (odd word counts too)", () => {
    // 96 dims: one 64-bit step and an odd 32-bit word per code; 512: eight steps.
    for (const dims of [96, 512]) {
      const random = rng(dims);
      const vectors = Array.from({ length: 9000 }, () => Float32Array.from({ length: dims }, random));
      const index = new VectorIndex(dims);
      vectors.forEach((vector, i) => {
        index.add(i + 1, vector, { agentId: null, scope: "swarm" });
      });
      const all = { agent: true, swarm: true, agentCode: -1 };
      // Across all three pages, including the last slots of each.
      for (const i of [0, 1, 4095, 4096, 6000, 8191, 8192, 8999]) {
        const [top] = index.search(vectors[i]!, { limit: 1, filter: all });
        expect(top?.id).toBe(i + 1);
      }
    }
  });

  it("takes as candidates the codes nearest by Hamming distance over every bit: first, middle and odd last word", () => {
    // The query's signs with the wrong magnitudes (A), against the query's magnitudes with
    // a few signs flipped in one range of dimensions (B). A is nearer by Hamming distance,
    // the Bs by the estimate: with one candidate asked for, only A may be a candidate.
    for (const [dims, from, to] of [
      [96, 0, 32],
      [96, 32, 64],
      [96, 64, 96],
      [512, 480, 512],
    ] as const) {
      const random = rng(dims + from);
      const inRange = (d: number) => d >= from && d < to;
      const query = Float32Array.from({ length: dims }, (_, d) => (random() > 0 ? 1 : -1) * (inRange(d) ? 0.4 : d % 2 ? 0.1 : 1));
      const a = query.map((x, d) => (inRange(d) ? x : Math.sign(x) * (d % 2 ? 1 : 0.1)));
      const index = new VectorIndex(dims);
      index.add(1, a, { agentId: null, scope: "swarm" });
      for (let b = 0; b < 5; b++) {
        index.add(
          100 + b,
          query.map((x, d) => (d === from + b * 5 || d === to - 1 - b ? -x : x)),
          { agentId: null, scope: "swarm" },
        );
      }
      const all = { agent: true, swarm: true, agentCode: -1 };
      // The Bs estimate higher than A: the estimate alone would pick one of them.
      expect(index.search(query, { limit: 1, candidates: 6, filter: all })[0]?.id).toBeGreaterThanOrEqual(100);
      expect(index.search(query, { limit: 1, candidates: 1, filter: all }).map((hit) => hit.id)).toEqual([1]);
    }
  });

  it("counts only the query's own dimensions: a short query's zeros do not choose the candidates", () => {
    // The query has numbers in 64 of 512 dimensions. A agrees with all 64 (and has small
    // numbers of either sign elsewhere): the best cosine. Each B disagrees in 3 of them and
    // is a hair below zero elsewhere, like the query's zeros' sign bits.
    const dims = 512;
    const random = rng(5);
    const query = Float32Array.from({ length: dims }, (_, d) => (d < 64 ? (random() > 0 ? 1 : -1) : 0));
    const a = query.map((x, d) => (d < 64 ? x : random() > 0 ? 0.05 : -0.05));
    const index = new VectorIndex(dims);
    index.add(1, a, { agentId: null, scope: "swarm" });
    for (let b = 0; b < 20; b++) {
      const flipped = new Set([b, (b + 7) % 64, (b + 29) % 64]);
      const vector = query.map((x, d) => (d < 64 ? (flipped.has(d) ? -x : x) : -0.001));
      index.add(100 + b, vector, { agentId: null, scope: "swarm" });
      expect(cosine(query, a)).toBeGreaterThan(cosine(query, vector));
    }
    const [top] = index.search(query, { limit: 1, candidates: 1, filter: { agent: true, swarm: true, agentCode: -1 } });
    expect(top?.id).toBe(1);
  });

  it("with a center, tells apart memories that share their common words (a long-tailed corpus), estimating the same cosines", () => {
    // The benchmark's corpus: a 5,000-word Zipf vocabulary, the fake provider's embeddings,
    // queries of three words of a stored memory. Common words give every vector a large
    // shared part, so their sign bits agree where their meanings differ.
    const dims = 512;
    const corpus = zipfCorpus();
    const n = 10_000;
    const vectors = Array.from({ length: n }, (_, i) => {
      const { name, content } = corpus.memory(i);
      return fakeEmbedding(`${name}\n\n${content}`, dims);
    });
    const mean = new Float32Array(dims);
    for (const vector of vectors.slice(0, 2000)) for (let d = 0; d < dims; d++) mean[d]! += vector[d]! / 2000;
    const plain = new VectorIndex(dims);
    const centered = new VectorIndex(dims);
    expect(centered.setCenter(mean)).toBe(true);
    vectors.forEach((vector, i) => {
      plain.add(i + 1, vector, { agentId: null, scope: "swarm" });
      centered.add(i + 1, vector, { agentId: null, scope: "swarm" });
    });
    // Too late once a vector is in.
    expect(centered.setCenter(mean)).toBe(false);
    const random = seeded(7);
    const all = { agent: true, swarm: true, agentCode: -1 };
    const found = { plain: 0, centered: 0 };
    let error = 0;
    const queries = 50;
    for (let q = 0; q < queries; q++) {
      const query = fakeEmbedding(corpus.query(random, n), dims);
      const exact = vectors
        .map((vector, i) => ({ id: i + 1, c: cosine(query, vector) }))
        .sort((a, b) => b.c - a.c)
        .slice(0, 10);
      const fromPlain = new Set(plain.search(query, { limit: 300, filter: all }).map((hit) => hit.id));
      const hits = centered.search(query, { limit: 300, filter: all });
      const fromCentered = new Set(hits.map((hit) => hit.id));
      found.plain += exact.filter((hit) => fromPlain.has(hit.id)).length;
      found.centered += exact.filter((hit) => fromCentered.has(hit.id)).length;
      // The estimate is still of the cosine with the vector itself, not with the vector less the center.
      error += Math.abs(hits[0]!.cosine - cosine(query, vectors[hits[0]!.id - 1]!));
    }
    expect(found.centered / (queries * 10)).toBeGreaterThanOrEqual(0.85);
    expect(found.centered).toBeGreaterThan(found.plain + 50);
    expect(error / queries).toBeLessThan(0.15);
  }, 60_000);

  it("applies visibility inside the scan on every page, for any mix of agents and the swarm", () => {
    const dims = 64;
    const random = rng(11);
    const index = new VectorIndex(dims);
    const owner = (i: number) => (i % 4 === 0 ? null : `agent-${i % 7}`);
    const n = 10_000;
    for (let i = 0; i < n; i++) {
      const agentId = owner(i);
      index.add(i + 1, Float32Array.from({ length: dims }, random), { agentId, scope: agentId ? "agent" : "swarm" });
    }
    const query = Float32Array.from({ length: dims }, random);
    const seen = (filter: { agent: boolean; swarm: boolean; agentCode: number }) =>
      new Set(index.search(query, { limit: n, candidates: n, filter }).map((hit) => hit.id - 1));
    const expected = (keep: (i: number) => boolean) => new Set(Array.from({ length: n }, (_, i) => i).filter(keep));
    const agent3 = index.findAgentCode("agent-3");
    expect(seen({ agent: true, swarm: true, agentCode: agent3 })).toEqual(expected((i) => owner(i) === null || owner(i) === "agent-3"));
    expect(seen({ agent: true, swarm: false, agentCode: agent3 })).toEqual(expected((i) => owner(i) === "agent-3"));
    expect(seen({ agent: false, swarm: true, agentCode: -1 })).toEqual(expected((i) => owner(i) === null));
    expect(seen({ agent: true, swarm: false, agentCode: -1 })).toEqual(expected((i) => owner(i) !== null));
    expect(seen({ agent: true, swarm: true, agentCode: -1 }).size).toBe(n);
  });

  it("runs the kernel the install compiled from vector-kernel.wat (a stale build fails here)", async () => {
    expect(KERNEL_FILE).toBe(OUTPUT);
    expect(Buffer.compare(await compileKernel(), readFileSync(KERNEL_FILE))).toBe(0);
  });

  it("round-trips Float32 bytes", () => {
    const v = Float32Array.from([0.5, -1.25, 3]);
    expect([...fromBytes(toBytes(v))]).toEqual([0.5, -1.25, 3]);
  });

  it("reads a stored blob as floats wherever its bytes sit, and refuses one of another length", () => {
    const stored = toBytes(Float32Array.from([0.5, -1.25, 3]));
    const scratch = new Float32Array(3);
    expect([...vectorFromBytes(Buffer.from(stored), scratch)!]).toEqual([0.5, -1.25, 3]);
    // A blob that starts at an odd byte of its buffer (no float view is possible there).
    const shifted = Buffer.concat([Buffer.from([7]), stored]).subarray(1);
    expect(shifted.byteOffset % 4).not.toBe(0);
    expect([...vectorFromBytes(shifted, scratch)!]).toEqual([0.5, -1.25, 3]);
    expect(vectorFromBytes(stored.subarray(0, 8), scratch)).toBeNull();
  });

  it("gives the cosine against a unit query: 1/sqrt(2) at 45 degrees, 0 for a zero vector", () => {
    const unit = Float32Array.from([3, 4]);
    normalize(unit);
    expect(cosineWithUnit(unit, Float32Array.from([3, 4]))).toBeCloseTo(1, 6);
    expect(cosineWithUnit(Float32Array.from([1, 0]), Float32Array.from([2, 2]))).toBeCloseTo(Math.SQRT1_2, 6);
    expect(cosineWithUnit(Float32Array.from([0, 1]), Float32Array.from([-5, 0]))).toBe(0);
    expect(cosineWithUnit(unit, Float32Array.from([0, 0]))).toBe(0);
  });
});

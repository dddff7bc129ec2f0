import { describe, expect, it } from "vitest";
import { cosine, fromBytes, normalize, toBytes, VectorIndex } from "./vector-index";

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
    // Per slot at 32 dims: sign and magnitude words (4 + 4), two levels (4 + 4), id, agent, scope (4 + 4 + 1).
    const pageBytes = 4096 * (4 + 4 + 4 + 4 + 4 + 4 + 1);
    const random = rng(3);
    const vector = () => Float32Array.from({ length: 32 }, random);
    expect(index.bytes).toBe(0);
    index.add(1, vector(), { agentId: null, scope: "swarm" });
    expect(index.bytes).toBe(pageBytes);
    for (let id = 2; id <= 10_000; id++) index.add(id, vector(), { agentId: "a", scope: "agent" });
    expect(index.bytes).toBe(3 * pageBytes);
    expect(index.size).toBe(10_000);
  });

  it("round-trips Float32 bytes", () => {
    const v = Float32Array.from([0.5, -1.25, 3]);
    expect([...fromBytes(toBytes(v))]).toEqual([0.5, -1.25, 3]);
  });
});

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { indexState, memoryIndex, startIndexLoad } from "./search-index";
import { fromBytes, normalize, toBytes, type VectorIndex } from "./vector-index";

const DIMS = 32;

/** Embedded memories as a store hands them over: id, visibility, the vector as hex. */
type Stored = { id: number; agentId: string | null; scope: string; embedding: string };

function memory(id: number): Stored {
  // Vectors that share a large common part, as embeddings of one corpus do, and differ in the rest.
  let seed = id * 2654435761;
  const random = () => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return seed / 2 ** 32 - 0.5;
  };
  const vector = Float32Array.from({ length: DIMS }, () => 1 + random());
  normalize(vector);
  return { id, agentId: null, scope: "swarm", embedding: toBytes(vector).toString("hex") };
}

const vectorOf = (row: Stored) => fromBytes(Buffer.from(row.embedding, "hex"));

/** A store over `rows`: its sample is its first `sampleSize` rows (the oldest), its load adds them all. */
function store(rows: Stored[], sampleSize = 2000) {
  return {
    sample: async () => rows.slice(0, sampleSize),
    load: async (index: VectorIndex) => {
      for (const row of rows) index.add(row.id, vectorOf(row), row);
    },
  };
}

/** What the embedder does for a memory embedded after the load: adds it to the index in use. */
function embedded(rows: Stored[], id: number) {
  const row = memory(id);
  rows.push(row);
  memoryIndex()?.add(id, vectorOf(row), row);
}

describe("the process's vector index", () => {
  const saved = { ...process.env };
  beforeEach(() => {
    // A provider configured (never called here): the index is for its model and dimensions.
    process.env.OPENAI_BASE_URL = "http://127.0.0.1:9/v1";
    process.env.EMBEDDING_DIMENSIONS = String(DIMS);
    (globalThis as { swarmdeckMemoryIndex?: unknown }).swarmdeckMemoryIndex = undefined;
  });
  afterEach(() => {
    process.env = { ...saved };
  });

  it("is centered from the start when the store already holds 200 memories", async () => {
    const rows = Array.from({ length: 250 }, (_, i) => memory(i + 1));
    await startIndexLoad(store(rows));
    expect(memoryIndex()?.centered).toBe(true);
    expect(memoryIndex()?.size).toBe(250);
  });

  it("starting empty, it is loaded again with a center once it holds 200 memories, and keeps every one", async () => {
    const rows: Stored[] = [];
    const fresh = store(rows);
    await startIndexLoad(fresh);
    const first = memoryIndex();
    expect(first?.centered).toBe(false);

    for (let id = 1; id < 200; id++) embedded(rows, id);
    await startIndexLoad(fresh); // a search asks for the index: 199 memories, not yet
    expect(memoryIndex()).toBe(first);

    embedded(rows, 200);
    await startIndexLoad(fresh);
    const second = memoryIndex();
    expect(second).not.toBe(first);
    expect(second?.centered).toBe(true);
    expect(second?.size).toBe(200);
    expect(indexState().ready).toBe(true);
    // Memory 77 is among the best estimates for its own vector.
    const query = vectorOf(memory(77));
    const hits = second?.search(query, { limit: 5, filter: { agent: true, swarm: true, agentCode: -1 } }) ?? [];
    expect(hits.map((hit) => hit.id)).toContain(77);
  });

  it("goes on serving while the centered one loads, and what is added or removed meanwhile reaches the new one", async () => {
    const rows: Stored[] = [];
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const base = store(rows);
    const slow = {
      sample: base.sample,
      load: async (index: VectorIndex) => {
        await base.load(index);
        await gate; // the load has read the store; writes go on meanwhile
      },
    };
    await startIndexLoad(base);
    for (let id = 1; id <= 200; id++) embedded(rows, id);
    const first = memoryIndex();

    const loading = startIndexLoad(slow);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(memoryIndex()).toBe(first); // still the one searches use
    expect(indexState().ready).toBe(true);
    expect(startIndexLoad(slow)).toBe(loading); // one load at a time
    embedded(rows, 201);
    first?.remove(5);
    release();
    await loading;

    const second = memoryIndex();
    expect(second).not.toBe(first);
    expect(second?.centered).toBe(true);
    expect(second?.size).toBe(200); // 200 loaded, 201 added, 5 removed
    const ids = (second?.search(vectorOf(memory(201)), { limit: 5, filter: { agent: true, swarm: true, agentCode: -1 } }) ?? []).map(
      (hit) => hit.id,
    );
    expect(ids).toContain(201);
    const near5 = (second?.search(vectorOf(memory(5)), { limit: 300, filter: { agent: true, swarm: true, agentCode: -1 } }) ?? []).map(
      (hit) => hit.id,
    );
    expect(near5).not.toContain(5);
  });

  it("when loading the centered one fails, the one in use goes on serving, whole, and is not replaced by the next search", async () => {
    const rows: Stored[] = [];
    const base = store(rows);
    await startIndexLoad(base);
    for (let id = 1; id <= 200; id++) embedded(rows, id);
    const first = memoryIndex();
    const failing = {
      sample: base.sample,
      load: async () => {
        throw new Error("the store went away");
      },
    };
    await startIndexLoad(failing);
    expect(memoryIndex()).toBe(first);
    expect(indexState().ready).toBe(true);
    expect(first?.mirror).toBeNull();
    await startIndexLoad(base); // the next search asks for the index
    expect(memoryIndex()).toBe(first);
    expect(memoryIndex()?.size).toBe(200);
    expect(indexState().ready).toBe(true);
  });

  it("when the store's sample stays too small, loads again only once the index has doubled", async () => {
    const rows: Stored[] = [];
    const narrow = store(rows, 10); // a sample that never reaches 200 rows
    await startIndexLoad(narrow);
    for (let id = 1; id <= 200; id++) embedded(rows, id);
    await startIndexLoad(narrow);
    const reloaded = memoryIndex();
    expect(reloaded?.centered).toBe(false);
    expect(reloaded?.size).toBe(200);

    for (let id = 201; id < 400; id++) embedded(rows, id);
    await startIndexLoad(narrow);
    expect(memoryIndex()).toBe(reloaded);
    embedded(rows, 400);
    await startIndexLoad(narrow);
    expect(memoryIndex()).not.toBe(reloaded);
    expect(memoryIndex()?.size).toBe(400);
  });
});

// The keyword index against SQLite FTS5 itself (the same tokenizer and bm25()
// weights search.ts used before it): on a long-tailed corpus with queries of
// common words it must return FTS5's exhaustive top 10 while reading a bounded
// number of postings, and keep doing so through visibility, writes and deletes.
import { beforeAll, describe, expect, it } from "vitest";
import { type KeywordFixture, keywordFixture, recall } from "../../tests/support/keyword-reference";
import { rng, zipfCorpus } from "../../tests/support/zipf-corpus";
import { queryStems } from "./text";

const corpus = zipfCorpus();
const AGENTS = 10;
const scopeOf = (i: number) => (i % 5 === 0 ? { scope: "swarm", agentId: null } : { scope: "agent", agentId: `agent-${i % AGENTS}` });
const fixture = (count: number) => keywordFixture(corpus, count, scopeOf);

const everyone = { agent: true, swarm: true, agentCode: -1 };
const SIZE = 8_000;

describe("keyword index on a Zipf corpus (5,000 words), queries of three words of a stored memory", () => {
  let f: KeywordFixture;
  beforeAll(() => {
    f = fixture(SIZE);
  }, 120_000);

  it("returns FTS5's exhaustive BM25 top 10 (recall@10 >= 0.99) while reading a small share of the postings", { timeout: 120_000 }, () => {
    const random = rng(7);
    let hits = 0;
    let wanted = 0;
    const touchedShare: number[] = [];
    for (let q = 0; q < 80; q++) {
      const query = corpus.query(random, SIZE);
      const got = f.index.search(queryStems(query), 10, everyone);
      const touched = f.index.lastTouched;
      const result = recall(f, query, got);
      hits += result.hits;
      wanted += result.wanted;
      // FTS5 ranks every memory holding any of the words; the index reads a part of that.
      touchedShare.push(touched / result.matches);
    }
    expect(hits / wanted).toBeGreaterThanOrEqual(0.99);
    touchedShare.sort((a, b) => a - b);
    expect(touchedShare[Math.floor(touchedShare.length / 2)]).toBeLessThan(0.1);
  });

  it("stops once it has read its budget of postings, with the best found so far", () => {
    const stems = queryStems(corpus.vocabulary.slice(10, 13).join(" "));
    f.index.search(stems, 30, everyone);
    const unbounded = f.index.lastTouched;
    expect(unbounded).toBeGreaterThan(400);
    const cut = f.index.search(stems, 30, everyone, { budget: 200 });
    // Lists are read 16 postings at a time: never more than one step past the budget.
    expect(f.index.lastTouched).toBeGreaterThanOrEqual(200);
    expect(f.index.lastTouched).toBeLessThan(200 + 16);
    expect(cut.length).toBe(30);
    for (const hit of cut) expect(hit.score).toBeGreaterThan(0);
  });

  it("costs no more for common words than for rarer ones (FTS5's cost grows with how common they are)", { timeout: 60_000 }, () => {
    const cost = (rank: number) => {
      const query = corpus.vocabulary.slice(rank, rank + 3).join(" ");
      const got = f.index.search(queryStems(query), 10, everyone);
      const touched = f.index.lastTouched;
      const result = recall(f, query, got);
      expect(result.hits).toBe(result.wanted);
      return { touched, matches: result.matches };
    };
    // Words of rank 10-12 each appear in about a third of the memories; rank 50-52 in about one in twelve (FTS5 ranks ~3x fewer).
    const common = cost(10);
    const rarer = cost(50);
    expect(common.matches).toBeGreaterThan(2.5 * rarer.matches);
    expect(common.touched).toBeLessThanOrEqual(rarer.touched);
    expect(common.touched).toBeLessThan(common.matches / 4);
  });

  it("applies visibility inside the search: a worker gets its own and the swarm's memories, ranked as FTS5 ranks them", {
    timeout: 60_000,
  }, () => {
    const random = rng(11);
    const filter = { agent: true, swarm: true, agentCode: f.index.findAgentCode("agent-3") };
    let hits = 0;
    let wanted = 0;
    for (let q = 0; q < 40; q++) {
      const query = corpus.query(random, SIZE);
      const got = f.index.search(queryStems(query), 10, filter);
      for (const hit of got) expect(scopeOf(hit.id).scope === "swarm" || scopeOf(hit.id).agentId === "agent-3").toBe(true);
      const result = recall(f, query, got, "(doc.scope = 'swarm' OR doc.agentId = ?)", ["agent-3"]);
      hits += result.hits;
      wanted += result.wanted;
    }
    expect(hits / wanted).toBeGreaterThanOrEqual(0.99);
    // Scope filters: swarm only, and an agent with nothing indexed sees only the swarm's.
    const query = corpus.vocabulary.slice(20, 23).join(" ");
    const swarmOnly = f.index.search(queryStems(query), 10, { agent: false, swarm: true, agentCode: -1 });
    const stranger = f.index.search(queryStems(query), 10, { agent: true, swarm: true, agentCode: f.index.findAgentCode("nobody") });
    expect(swarmOnly.length).toBe(10);
    for (const hit of [...swarmOnly, ...stranger]) expect(hit.id % 5).toBe(0);
  });
});

describe("keyword index kept current", () => {
  it("finds new memories at once, drops deleted and hidden ones, and still matches FTS5", { timeout: 60_000 }, () => {
    const f = fixture(2_000);
    f.index.search(["x"], 1, everyone); // built (impact order fixed) before the writes below
    f.sqlite.transaction(() => {
      for (let id = 2_001; id <= 3_000; id++) f.add(id);
    })();
    const random = rng(5);
    for (let q = 0; q < 30; q++) {
      const query = corpus.query(random, 3_000);
      const result = recall(f, query, f.index.search(queryStems(query), 10, everyone));
      expect(result.hits).toBe(result.wanted);
    }
    // A new memory with a word of its own is found by it; hidden (archived), it is not.
    f.index.add({ id: 5_000, name: "note", content: "the zzquokka lesson", scope: "swarm", agentId: null });
    expect(f.index.search(queryStems("zzquokka"), 10, everyone).map((hit) => hit.id)).toEqual([5_000]);
    f.index.hide(5_000);
    expect(f.index.search(queryStems("zzquokka"), 10, everyone)).toEqual([]);
    // An expired memory is not returned either.
    f.index.add({ id: 5_001, name: "note", content: "the zzwombat lesson", scope: "swarm", agentId: null, expiresAt: Date.now() - 1 });
    expect(f.index.search(queryStems("zzwombat"), 10, everyone)).toEqual([]);
    // Deleting removes a memory from answers and from the statistics (as FTS5 forgets it).
    const query = corpus.query(random, 3_000);
    const [first] = f.index.search(queryStems(query), 10, everyone);
    f.index.remove(first!.id);
    f.sqlite.prepare("DELETE FROM memory_fts WHERE rowid = ?").run(first!.id);
    const after = f.index.search(queryStems(query), 10, everyone);
    expect(after.map((hit) => hit.id)).not.toContain(first!.id);
    const result = recall(f, query, after);
    expect(result.hits).toBe(result.wanted);
  });

  it("stays exact when the mean memory length drifts far from the one its order was built with", { timeout: 60_000 }, () => {
    const f = fixture(1_500);
    f.index.search(["x"], 1, everyone);
    // Long memories: the mean length more than doubles.
    const insertDoc = f.sqlite.prepare("INSERT INTO doc (id, scope, agentId) VALUES (?, 'swarm', NULL)");
    const insertFts = f.sqlite.prepare("INSERT INTO memory_fts (rowid, name, content) VALUES (?, ?, ?)");
    for (let id = 1_501; id <= 2_500; id++) {
      const a = corpus.memory(id);
      const content = `${a.content} ${corpus.memory(id + 100_000).content} ${corpus.memory(id + 200_000).content}`;
      insertDoc.run(id);
      insertFts.run(id, a.name, content);
      f.index.add({ id, name: a.name, content, scope: "swarm", agentId: null });
    }
    const random = rng(9);
    for (let q = 0; q < 30; q++) {
      const query = corpus.query(random, 2_500);
      const result = recall(f, query, f.index.search(queryStems(query), 10, everyone));
      expect(result.hits).toBe(result.wanted);
    }
  });
});

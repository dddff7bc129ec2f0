// The in-memory keyword index: BM25 top-k that stops early, so a query made of
// common words costs about what a rare one does. FTS5 ranks every memory holding
// any query word (its bm25() is computed per match, then sorted), which at 100k
// memories and a word found in a third of them is a scan of tens of thousands
// of rows per search.
//
// Layout. Per stem an impact-ordered postings list: the memories holding it,
// sorted by the stem's BM25 term-frequency part in each (its "impact", kept as a
// rounded-up 16-bit key). Per memory a forward list (its stems and weighted
// frequencies) so a memory's exact score is a lookup, not a scan. Appends go to
// a short unsorted tail that is merged into the sorted part every TAIL_MERGE
// appends, so a write costs a few microseconds and never a re-sort of the list.
//
// Search: Fagin's Threshold Algorithm. The lists of the query's stems are read
// in impact order, always advancing the one whose next posting could add the
// most; each newly seen visible memory is scored exactly from its forward list;
// the search stops as soon as the k-th best exact score is at least the sum of
// what the unread parts of every list could still add, i.e. no unseen memory can
// enter the top k. Rare stems have high idf and short lists, common stems a low
// idf, so their (long) lists are read only as far as they can still matter. A
// budget of postings read (MAX_TOUCHED) caps the worst case; past it the answer
// is the best found so far.
//
// Scores are those of SQLite FTS5's bm25() with the weights search.ts uses (name
// x2, content x1; k1 1.2, b 0.75, idf ln((N - n + 0.5)/(n + 0.5)) floored at
// 1e-6, document length = every token of the row), so the index returns the same
// top k as an exhaustive FTS5 ranking (recall@10 is tested against FTS5 itself).
// Statistics count archived memories too, as FTS5 does; they are never returned.
import { AgentCodes, type IndexFilter } from "./agent-codes";
import { SlotMap } from "./slot-map";
import { cachedStem, isStopWord, words } from "./text";

export type KeywordFilter = IndexFilter;

export type KeywordDoc = {
  id: number;
  name: string;
  content: string;
  scope: string;
  agentId: string | null;
  /** Archived or superseded: counted in the statistics, never returned. */
  hidden?: boolean;
  /** Epoch ms; null or 0: never. */
  expiresAt?: number | null;
};

export type KeywordHit = { id: number; score: number };

const K1 = 1.2;
const B = 0.75;
const NAME_WEIGHT = 2;
/** Impact keys: the term-frequency part (0..k1+1) x KEY_SCALE, rounded up. */
const KEY_SCALE = 20_000;
const TAIL_MERGE = 128;
/**
 * Postings read per search, at most (sorted accesses); the answer past it is the best
 * found. Few searches come near it (the median reads a few thousand at 1M memories),
 * but those that do are the ones it decides: at 1M on the Zipf corpus
 * (`npm run bench:memory -- --index-only --1m`), one agent's view kept recall@10
 * against FTS5 at 0.984 with 20,000 and 0.996 with 100,000.
 */
export const MAX_TOUCHED = 100_000;
/**
 * The budget for a query's related words (query expansion, lib/memory/search.ts):
 * up to 32 of them, whose few candidates need no exact rank, so they keep the
 * smaller budget and the cost of a long expanded query stays where it was.
 */
export const RELATED_TOUCHED = 20_000;
/** Rebuild the impact order when the mean document length drifts this far from the one it was built with. */
const MAX_SLACK = 1.2;

/** Forward entries live in pages of this many (never copied to grow). */
const PAGE_SHIFT = 20;
const PAGE_SIZE = 1 << PAGE_SHIFT;
const PAGE_MASK = PAGE_SIZE - 1;
const SWARM = -1;
const NO_AGENT = -2;
/** A forward entry packs a stem id (high 24 bits) and its weighted frequency (low 8 bits, capped at 255). */
const FREQ_BITS = 8;
const MAX_TERMS = 1 << 23;

type Postings = { slots: Int32Array; keys: Uint16Array; length: number; sorted: number };

function grown<T extends Int32Array | Uint16Array | Uint8Array | Float64Array>(array: T, needed: number): T {
  if (needed <= array.length) return array;
  const next = new (array.constructor as new (size: number) => T)(Math.max(needed, Math.ceil(array.length * 1.5) + 16));
  next.set(array);
  return next;
}

export class KeywordIndex {
  private readonly termIds = new Map<string, number>();
  private readonly postings: Postings[] = [];
  private df = new Int32Array(1024);
  private readonly slotOf = new SlotMap();
  private readonly agentCodes = new AgentCodes();
  // Per slot: memory id (-1: removed), token count, visibility group, hidden, expiry, forward list.
  private ids = new Int32Array(0);
  private lengths = new Int32Array(0);
  private groups = new Int32Array(0);
  private hidden = new Uint8Array(0);
  private expires = new Float64Array(0);
  private forwardStart = new Int32Array(0);
  private forwardCount = new Uint16Array(0);
  private readonly forward: Int32Array[] = [];
  private forwardUsed = 0;
  private used = 0;
  private live = 0;
  private removed = 0;
  private totalTokens = 0;
  /** The mean document length the impact keys were computed with (0: not built yet). */
  private referenceLength = 0;
  private seen = new Uint32Array(0);
  private epoch = 0;
  /** Postings read by the last search (sorted and tail accesses); for tests and benches. */
  lastTouched = 0;

  get size(): number {
    return this.live;
  }

  /** Bytes held by the index's arrays (postings, forward lists, per-memory fields). */
  get bytes(): number {
    let total = this.df.byteLength + this.seen.byteLength + this.slotOf.bytes;
    for (const list of this.postings) total += list.slots.byteLength + list.keys.byteLength;
    for (const array of [
      this.ids,
      this.lengths,
      this.groups,
      this.hidden,
      this.expires,
      this.forwardStart,
      this.forwardCount,
      ...this.forward,
    ])
      total += array.byteLength;
    return total;
  }

  has(id: number): boolean {
    return this.slotOf.has(id);
  }

  /** A stable small integer for an agent id (used in filters). */
  agentCode(agentId: string): number {
    return this.agentCodes.code(agentId);
  }

  /** Looks a code up without creating one (UNKNOWN_AGENT: an agent with nothing indexed). */
  findAgentCode(agentId: string): number {
    return this.agentCodes.find(agentId);
  }

  private avgLength(): number {
    return this.live > 0 ? this.totalTokens / this.live : 1;
  }

  private impactKey(freq: number, length: number): number {
    const tf = (freq * (K1 + 1)) / (freq + K1 * (1 - B + (B * length) / this.referenceLength));
    return Math.min(65535, Math.ceil(tf * KEY_SCALE));
  }

  /** Adds (or replaces) one memory. */
  add(doc: KeywordDoc): void {
    this.remove(doc.id);
    const freqs = new Map<number, number>();
    let length = 0;
    const count = (text: string, weight: number) => {
      for (const word of words(text)) {
        length++;
        if (isStopWord(word)) continue;
        const term = this.termId(cachedStem(word));
        freqs.set(term, (freqs.get(term) ?? 0) + weight);
      }
    };
    count(doc.name, NAME_WEIGHT);
    count(doc.content, 1);

    const slot = this.used++;
    if (slot >= this.ids.length) {
      const size = slot + 1;
      this.ids = grown(this.ids, size);
      this.lengths = grown(this.lengths, size);
      this.groups = grown(this.groups, size);
      this.hidden = grown(this.hidden, size);
      this.expires = grown(this.expires, size);
      this.forwardStart = grown(this.forwardStart, size);
      this.forwardCount = grown(this.forwardCount, size);
    }
    this.ids[slot] = doc.id;
    this.lengths[slot] = length;
    this.groups[slot] = doc.scope === "swarm" ? SWARM : doc.agentId ? this.agentCode(doc.agentId) : NO_AGENT;
    this.hidden[slot] = doc.hidden ? 1 : 0;
    this.expires[slot] = doc.expiresAt ?? 0;
    this.slotOf.set(doc.id, slot);
    this.live++;
    this.totalTokens += length;

    // The forward list, sorted by stem id (a lookup is a binary search), inside one page.
    const terms = [...freqs.keys()].sort((a, b) => a - b).slice(0, 65535);
    if ((this.forwardUsed & PAGE_MASK) + terms.length > PAGE_SIZE) this.forwardUsed = this.forward.length << PAGE_SHIFT;
    if (this.forwardUsed + terms.length > this.forward.length << PAGE_SHIFT) this.forward.push(new Int32Array(PAGE_SIZE));
    this.forwardStart[slot] = this.forwardUsed;
    this.forwardCount[slot] = terms.length;
    const page = this.forward[this.forwardUsed >>> PAGE_SHIFT]!;
    let at = this.forwardUsed & PAGE_MASK;
    for (const term of terms) {
      const freq = Math.min(255, freqs.get(term)!);
      page[at++] = (term << FREQ_BITS) | freq;
      this.df[term]!++;
      if (this.referenceLength > 0) this.append(term, slot, this.impactKey(freq, length));
    }
    this.forwardUsed += terms.length;
    if (this.referenceLength > 0 && (this.slack() > MAX_SLACK || (this.removed > 1000 && this.removed > this.live / 4))) this.build();
  }

  private termId(text: string): number {
    let id = this.termIds.get(text);
    if (id === undefined) {
      id = this.postings.length;
      if (id >= MAX_TERMS) throw new Error("keyword index: too many distinct words");
      this.termIds.set(text, id);
      this.postings.push({ slots: new Int32Array(2), keys: new Uint16Array(2), length: 0, sorted: 0 });
      this.df = grown(this.df, id + 1);
    }
    return id;
  }

  private push(list: Postings, slot: number, key: number) {
    if (list.length === list.slots.length) {
      list.slots = grown(list.slots, list.length + 1);
      list.keys = grown(list.keys, list.length + 1);
    }
    list.slots[list.length] = slot;
    list.keys[list.length++] = key;
  }

  private append(term: number, slot: number, key: number) {
    const list = this.postings[term]!;
    this.push(list, slot, key);
    if (list.length - list.sorted >= TAIL_MERGE) this.mergeTail(list);
  }

  /** Sorts the tail and merges it into the sorted part (one linear pass). */
  private mergeTail(list: Postings) {
    const { slots: oldSlots, keys: oldKeys, sorted } = list;
    const tail = Array.from({ length: list.length - sorted }, (_, i) => sorted + i).sort(
      (a, b) => oldKeys[b]! - oldKeys[a]! || oldSlots[b]! - oldSlots[a]!,
    );
    const slots = new Int32Array(oldSlots.length);
    const keys = new Uint16Array(oldKeys.length);
    let a = 0;
    let b = 0;
    let out = 0;
    while (a < sorted || b < tail.length) {
      const t = tail[b]!;
      if (b >= tail.length || (a < sorted && (oldKeys[a]! > oldKeys[t]! || (oldKeys[a] === oldKeys[t] && oldSlots[a]! > oldSlots[t]!)))) {
        slots[out] = oldSlots[a]!;
        keys[out++] = oldKeys[a++]!;
      } else {
        slots[out] = oldSlots[t]!;
        keys[out++] = oldKeys[t]!;
        b++;
      }
    }
    list.slots = slots;
    list.keys = keys;
    list.sorted = list.length;
  }

  /** How far the mean document length moved since the keys were computed (>= 1). */
  private slack(): number {
    const ratio = this.avgLength() / this.referenceLength;
    return Math.max(ratio, 1 / ratio);
  }

  /**
   * (Re)computes every impact key with today's mean document length and sorts the
   * lists, leaving out removed memories: once after the initial load, and again
   * only when that mean drifts or removed memories pile up.
   */
  build(): void {
    this.referenceLength = this.avgLength();
    this.removed = 0;
    for (const list of this.postings) {
      list.length = 0;
      list.sorted = 0;
    }
    for (let slot = 0; slot < this.used; slot++) {
      if (this.ids[slot]! < 0) continue;
      const start = this.forwardStart[slot]!;
      const page = this.forward[start >>> PAGE_SHIFT]!;
      const from = start & PAGE_MASK;
      const to = from + this.forwardCount[slot]!;
      const length = this.lengths[slot]!;
      for (let e = from; e < to; e++) {
        const entry = page[e]!;
        this.push(this.postings[entry >>> FREQ_BITS]!, slot, this.impactKey(entry & 0xff, length));
      }
    }
    // Sorted by (key, slot) descending through one numeric typed-array sort of packed pairs.
    let packed = new Float64Array(0);
    for (const list of this.postings) {
      if (packed.length < list.length) packed = new Float64Array(list.length * 2);
      const view = packed.subarray(0, list.length);
      for (let i = 0; i < list.length; i++) view[i] = list.keys[i]! * 2 ** 32 + list.slots[i]!;
      view.sort();
      const slots = new Int32Array(list.length + 2);
      const keys = new Uint16Array(list.length + 2);
      for (let i = 0, from = list.length - 1; from >= 0; i++, from--) {
        const value = view[from]!;
        keys[i] = Math.floor(value / 2 ** 32);
        slots[i] = value % 2 ** 32;
      }
      list.slots = slots;
      list.keys = keys;
      list.sorted = list.length;
    }
  }

  /** Forgets a deleted memory: out of the statistics; its postings are skipped until the next build. */
  remove(id: number): void {
    const slot = this.slotOf.get(id);
    if (slot < 0) return;
    this.slotOf.delete(id);
    this.ids[slot] = -1;
    this.live--;
    this.removed++;
    this.totalTokens -= this.lengths[slot]!;
    const start = this.forwardStart[slot]!;
    const page = this.forward[start >>> PAGE_SHIFT]!;
    const from = start & PAGE_MASK;
    const to = from + this.forwardCount[slot]!;
    for (let e = from; e < to; e++) this.df[page[e]! >>> FREQ_BITS]!--;
  }

  /** Keeps a memory in the statistics but out of every answer (archived, superseded, expired). */
  hide(id: number): void {
    const slot = this.slotOf.get(id);
    if (slot >= 0) this.hidden[slot] = 1;
  }

  private idf(term: number): number {
    const n = this.df[term]!;
    const value = Math.log((this.live - n + 0.5) / (n + 0.5));
    return value > 0 ? value : 1e-6;
  }

  private queryTerms(stems: string[]) {
    const terms: { term: number; idf: number }[] = [];
    for (const text of new Set(stems)) {
      const term = this.termIds.get(text);
      if (term !== undefined && this.df[term]! > 0) terms.push({ term, idf: this.idf(term) });
    }
    return terms;
  }

  private visible(slot: number, filter: KeywordFilter, now: number): boolean {
    if (this.ids[slot]! < 0 || this.hidden[slot] === 1) return false;
    const expires = this.expires[slot]!;
    if (expires > 0 && expires <= now) return false;
    const group = this.groups[slot]!;
    if (group === SWARM) return filter.swarm;
    return filter.agent && (filter.agentCode === -1 || group === filter.agentCode);
  }

  /** Exact BM25 of one memory for the query's stems (sorted by stem id): a merge of two sorted lists. */
  private score(slot: number, terms: { term: number; idf: number }[], avg: number): number {
    const norm = K1 * (1 - B + (B * this.lengths[slot]!) / avg);
    const start = this.forwardStart[slot]!;
    const page = this.forward[start >>> PAGE_SHIFT]!;
    let e = start & PAGE_MASK;
    const end = e + this.forwardCount[slot]!;
    let total = 0;
    for (let t = 0; t < terms.length && e < end; t++) {
      const { term, idf } = terms[t]!;
      // Galloping would not pay: forward lists are short.
      while (e < end && page[e]! >>> FREQ_BITS < term) e++;
      if (e < end && page[e]! >>> FREQ_BITS === term) {
        const freq = page[e]! & 0xff;
        total += (idf * (freq * (K1 + 1))) / (freq + norm);
      }
    }
    return total;
  }

  /**
   * The `k` best visible memories for the query's stems by BM25 (score > 0),
   * best first. Reads the postings lists in impact order and stops when no unread
   * posting can change the top k (see the file comment), or once it has read
   * `budget` postings (default MAX_TOUCHED). `lastTouched` tells how many it read.
   */
  search(
    stems: string[],
    k: number,
    filter: KeywordFilter,
    { now = Date.now(), budget = MAX_TOUCHED }: { now?: number; budget?: number } = {},
  ): KeywordHit[] {
    this.lastTouched = 0;
    if (this.referenceLength === 0) this.build();
    const terms = this.queryTerms(stems).sort((a, b) => a.term - b.term);
    if (terms.length === 0 || k < 1) return [];
    if (this.seen.length < this.used) this.seen = new Uint32Array(this.used + 4096);
    if (++this.epoch === 0xffffffff) {
      this.seen.fill(0);
      this.epoch = 1;
    }
    const seen = this.seen;
    const epoch = this.epoch;
    const avg = this.avgLength();
    const topSlots = new Int32Array(k);
    const topScores = new Float64Array(k).fill(Number.NEGATIVE_INFINITY);
    let kept = 0;
    const consider = (slot: number) => {
      if (seen[slot] === epoch) return;
      seen[slot] = epoch;
      if (!this.visible(slot, filter, now)) return;
      const score = this.score(slot, terms, avg);
      if (kept === k && score <= topScores[k - 1]!) return;
      let at = kept < k ? kept++ : k - 1;
      while (at > 0 && topScores[at - 1]! < score) {
        topScores[at] = topScores[at - 1]!;
        topSlots[at] = topSlots[at - 1]!;
        at--;
      }
      topScores[at] = score;
      topSlots[at] = slot;
    };

    // The unsorted tails (shorter than TAIL_MERGE each) are read in full.
    let touched = 0;
    for (const { term } of terms) {
      const list = this.postings[term]!;
      for (let i = list.sorted; i < list.length; i++) consider(list.slots[i]!);
      touched += list.length - list.sorted;
    }
    // Threshold Algorithm over the sorted parts.
    const slack = this.slack();
    const count = terms.length;
    const lists = terms.map(({ term }) => this.postings[term]!);
    const position = new Int32Array(count);
    const bound = new Float64Array(count);
    const factor = terms.map(({ idf }) => (idf * slack) / KEY_SCALE);
    for (let t = 0; t < count; t++) bound[t] = lists[t]!.sorted > 0 ? lists[t]!.keys[0]! * factor[t]! : 0;
    for (;;) {
      let best = -1;
      let sum = 0;
      for (let t = 0; t < count; t++) {
        sum += bound[t]!;
        if (bound[t]! > 0 && (best < 0 || bound[t]! > bound[best]!)) best = t;
      }
      if (best < 0 || (kept === k && topScores[k - 1]! >= sum) || touched >= budget) break;
      // A few postings of the most promising list at a time (its bound only falls).
      const list = lists[best]!;
      const from = position[best]!;
      const end = Math.min(list.sorted, from + 16);
      for (let at = from; at < end; at++) consider(list.slots[at]!);
      touched += end - from;
      position[best] = end;
      bound[best] = end < list.sorted ? list.keys[end]! * factor[best]! : 0;
    }
    this.lastTouched = touched;
    const hits: KeywordHit[] = [];
    for (let i = 0; i < kept; i++) if (topScores[i]! > 0) hits.push({ id: this.ids[topSlots[i]!]!, score: topScores[i]! });
    return hits;
  }
}

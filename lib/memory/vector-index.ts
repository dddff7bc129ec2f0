// The in-memory vector index: every embedded memory as two bits a dimension:
// its sign (for a fast Hamming pre-filter) and whether its magnitude is large,
// plus the mean magnitude of its small and of its large numbers. That is
// dims/4 + 8 bytes a memory (+ 9 for id, agent and scope): 1M x 512 dims is
// ~145 MB, where int8 codes took ~590 MB and the raw floats 2 GB.
//
// A search scans the sign codes of the visible memories (popcount over dims/32
// words each), keeps the nearest `candidates` by Hamming distance, estimates
// their dot product with the query from the two bits a dimension (table reads,
// one per 4 dimensions) and returns the best `limit` estimates. The estimate is
// coarse (a 2-bit quantisation): callers ask for a few hundred and re-rank them
// exactly with the stored float vectors (search-index.ts, nearestMemories).
// Measured at 100k x 512 dims on tightly clustered vectors: the exact top 10 are
// within the best 300 estimates 98-99% of the time (bench:memory reports it).
//
// Adds and removes are O(1) (amortised), so the index is built once at start-up
// and then kept up to date incrementally; nothing is ever rebuilt per insert.
// Storage grows a page of 4,096 slots at a time: no copy to grow, at most one
// page unused.
import { AgentCodes, type IndexFilter } from "./agent-codes";
import { SlotMap } from "./slot-map";

export type VectorFilter = IndexFilter;

/** `cosine`: the index's estimate from search(); exact from nearestMemories (search-index.ts). */
export type VectorHit = { id: number; cosine: number };

/** Set bits of every 16-bit value: two table reads per word beat the SWAR popcount in V8. */
const POPCOUNT16 = (() => {
  const table = new Uint8Array(65536);
  for (let i = 1; i < 65536; i++) table[i] = (i & 1) + table[i >> 1]!;
  return table;
})();

/** Scales `vector` to unit length in place; returns false for a zero or non-finite vector. */
export function normalize(vector: Float32Array): boolean {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i]! * vector[i]!;
  if (!(sum > 0) || !Number.isFinite(sum)) return false;
  const inv = 1 / Math.sqrt(sum);
  for (let i = 0; i < vector.length; i++) vector[i]! *= inv;
  return true;
}

/** Slots per storage page: 4,096 x 512 dims is 0.6 MB. Pages are never copied to grow. */
const PAGE_SHIFT = 12;
const PAGE_SLOTS = 1 << PAGE_SHIFT;
const PAGE_MASK = PAGE_SLOTS - 1;
/**
 * A number is "large" above this many times the vector's root mean square (for
 * unit vectors, 1/sqrt(dims)). Lloyd-Max's 2-bit optimum for a Gaussian is
 * 0.98; with each vector's own two levels, 0.8 measured better (bench:memory).
 */
const MAG_THRESHOLD = 0.8;

/** One page of slots: sign bits, magnitude bits and the per-slot fields. */
type Page = {
  bits: Uint32Array;
  /** Per dimension: 1 when its magnitude is above the vector's threshold. */
  mags: Uint32Array;
  /** Per slot: the mean magnitude of its small and of its large numbers. */
  lows: Float32Array;
  highs: Float32Array;
  /** The memory id in each slot (-1: free). */
  ids: Int32Array;
  agents: Int32Array;
  swarm: Uint8Array;
};

export class VectorIndex {
  readonly dims: number;
  private readonly words: number;
  private readonly pages: Page[] = [];
  private used = 0;
  private live = 0;
  private readonly slotOf = new SlotMap();
  private readonly agentCodes = new AgentCodes();
  private distance = new Uint16Array(0);
  /** add()'s working copy of the vector it normalises (one per index, not one per add). */
  private readonly unit: Float32Array;

  constructor(dims: number) {
    if (!Number.isInteger(dims) || dims < 8 || dims % 32 !== 0) throw new Error(`unsupported dimensions ${dims} (a multiple of 32)`);
    this.dims = dims;
    this.words = dims / 32;
    this.unit = new Float32Array(dims);
  }

  get size(): number {
    return this.live;
  }

  /** Bytes held by the vector storage (pages allocated, used or not). */
  get bytes(): number {
    let total = 0;
    for (const page of this.pages) for (const array of Object.values(page)) total += array.byteLength;
    return total;
  }

  /** A stable small integer for an agent id (used in filters). */
  agentCode(agentId: string | null): number {
    return agentId ? this.agentCodes.code(agentId) : -1;
  }

  /** Looks a code up without creating one (UNKNOWN_AGENT: an agent with nothing indexed). */
  findAgentCode(agentId: string): number {
    return this.agentCodes.find(agentId);
  }

  has(id: number): boolean {
    return this.slotOf.has(id);
  }

  /** Adds or replaces one memory's vector (any length-`dims` vector; it is normalised here). */
  add(id: number, vector: Float32Array, meta: { agentId: string | null; scope: string }): boolean {
    if (vector.length !== this.dims) return false;
    const unit = this.unit;
    unit.set(vector);
    if (!normalize(unit)) return false;
    this.remove(id);
    if (this.used === this.pages.length * PAGE_SLOTS) this.compactOrGrow();
    const slot = this.used++;
    this.slotOf.set(id, slot);
    this.live++;
    const page = this.pages[slot >> PAGE_SHIFT]!;
    const at = slot & PAGE_MASK;
    page.ids[at] = id;
    page.agents[at] = this.agentCode(meta.agentId);
    page.swarm[at] = meta.scope === "swarm" ? 1 : 0;
    const bitBase = at * this.words;
    for (let w = 0; w < this.words; w++) {
      page.bits[bitBase + w] = 0;
      page.mags[bitBase + w] = 0;
    }
    const threshold = MAG_THRESHOLD / Math.sqrt(this.dims);
    let low = 0;
    let lows = 0;
    let high = 0;
    for (let i = 0; i < this.dims; i++) {
      const x = unit[i]!;
      if (x > 0) page.bits[bitBase + (i >> 5)]! |= 1 << (i & 31);
      const m = Math.abs(x);
      if (m > threshold) {
        page.mags[bitBase + (i >> 5)]! |= 1 << (i & 31);
        high += m;
      } else {
        low += m;
        lows++;
      }
    }
    page.lows[at] = lows > 0 ? low / lows : 0;
    page.highs[at] = lows < this.dims ? high / (this.dims - lows) : 0;
    return true;
  }

  remove(id: number): void {
    const slot = this.slotOf.get(id);
    if (slot < 0) return;
    this.slotOf.delete(id);
    this.pages[slot >> PAGE_SHIFT]!.ids[slot & PAGE_MASK] = -1;
    this.live--;
  }

  /** Full: squeeze out removed slots when a quarter or more are free, else add a page. */
  private compactOrGrow() {
    if (this.live < this.used * 0.75) {
      const { words } = this;
      let to = 0;
      for (let from = 0; from < this.used; from++) {
        const src = this.pages[from >> PAGE_SHIFT]!;
        const f = from & PAGE_MASK;
        if (src.ids[f]! < 0) continue;
        if (to !== from) {
          const dst = this.pages[to >> PAGE_SHIFT]!;
          const t = to & PAGE_MASK;
          dst.bits.set(src.bits.subarray(f * words, (f + 1) * words), t * words);
          dst.mags.set(src.mags.subarray(f * words, (f + 1) * words), t * words);
          dst.lows[t] = src.lows[f]!;
          dst.highs[t] = src.highs[f]!;
          dst.ids[t] = src.ids[f]!;
          dst.agents[t] = src.agents[f]!;
          dst.swarm[t] = src.swarm[f]!;
          this.slotOf.set(src.ids[f]!, to);
        }
        to++;
      }
      this.used = to;
      // Pages left empty are released (keeping one spare to add into).
      this.pages.length = Math.min(this.pages.length, (to >> PAGE_SHIFT) + 1);
      if (this.used < this.pages.length * PAGE_SLOTS) return;
    }
    this.pages.push({
      bits: new Uint32Array(PAGE_SLOTS * this.words),
      mags: new Uint32Array(PAGE_SLOTS * this.words),
      lows: new Float32Array(PAGE_SLOTS),
      highs: new Float32Array(PAGE_SLOTS),
      ids: new Int32Array(PAGE_SLOTS).fill(-1),
      agents: new Int32Array(PAGE_SLOTS),
      swarm: new Uint8Array(PAGE_SLOTS),
    });
  }

  /**
   * The `limit` visible memories of best estimated cosine (two bits a dimension),
   * chosen from the `candidates` nearest by Hamming distance of the sign codes.
   * The estimate orders roughly: re-rank a few hundred exactly (nearestMemories).
   */
  search(query: Float32Array, options: { limit: number; candidates?: number; filter: VectorFilter }): VectorHit[] {
    if (query.length !== this.dims || this.live === 0) return [];
    const unit = Float32Array.from(query);
    if (!normalize(unit)) return [];
    const { filter } = options;
    const words = this.words;
    const qbits = new Uint32Array(words);
    for (let i = 0; i < this.dims; i++) if (unit[i]! > 0) qbits[i >> 5]! |= 1 << (i & 31);

    // Pass 1: Hamming distance of every visible memory, and a histogram of them.
    // The hot loops read locals, not fields, and count bits with a 16-bit table.
    const used = this.used;
    const dims = this.dims;
    const wantSwarm = filter.swarm;
    const wantAgent = filter.agent;
    const agentCode = filter.agentCode;
    // The distance array is kept between searches: a fresh 200 KB one per search
    // (at 100k) is garbage outside the heap that the collector is slow to notice.
    if (this.distance.length < used) this.distance = new Uint16Array(used + PAGE_SLOTS);
    const distance = this.distance;
    const histogram = new Uint32Array(dims + 2);
    const hidden = dims + 1;
    let visible = 0;
    for (let p = 0, first = 0; first < used; p++, first += PAGE_SLOTS) {
      const { bits, ids, swarm, agents } = this.pages[p]!;
      const count = Math.min(PAGE_SLOTS, used - first);
      for (let at = 0, base = 0; at < count; at++, base += words) {
        const ok = ids[at]! >= 0 && (swarm[at] === 1 ? wantSwarm : wantAgent && (agentCode === -1 || agents[at] === agentCode));
        if (!ok) {
          distance[first + at] = hidden;
          continue;
        }
        // Two words a step (a measured ~15% off this pass); an odd last word after.
        let d = 0;
        let w = 0;
        for (; w + 1 < words; w += 2) {
          const x = bits[base + w]! ^ qbits[w]!;
          const y = bits[base + w + 1]! ^ qbits[w + 1]!;
          d += POPCOUNT16[x & 0xffff]! + POPCOUNT16[x >>> 16]! + POPCOUNT16[y & 0xffff]! + POPCOUNT16[y >>> 16]!;
        }
        if (w < words) {
          const x = bits[base + w]! ^ qbits[w]!;
          d += POPCOUNT16[x & 0xffff]! + POPCOUNT16[x >>> 16]!;
        }
        distance[first + at] = d;
        histogram[d]!++;
        visible++;
      }
    }
    if (visible === 0) return [];

    // The distance cut-off that keeps about `candidates` memories.
    // Default: 2% of the visible memories (at least 1,000, at most 4,000); at 100k
    // that is 2,000, whose recall@10 equals 3,000's (bench:memory), at ~0.6 ms less.
    const wanted = Math.min(
      visible,
      Math.max(options.candidates ?? Math.min(4000, Math.max(1000, Math.ceil(visible * 0.02))), options.limit),
    );
    let cutoff = 0;
    for (let seen = 0; cutoff <= dims; cutoff++) {
      seen += histogram[cutoff]!;
      if (seen >= wanted) break;
    }

    // Pass 2: the candidates' estimated dot product. Tables of the query's partial
    // dot products per 4-number chunk, keyed by the chunk's 4 sign bits and 4
    // magnitude bits: the small numbers' and the large numbers' signed sums of
    // the query, which each memory's two levels scale.
    const chunks = dims / 4;
    const smallT = new Float32Array(chunks * 256);
    const largeT = new Float32Array(chunks * 256);
    const signed = new Float64Array(4);
    const large = new Float64Array(16);
    for (let c = 0; c < chunks; c++) {
      for (let signs = 0; signs < 16; signs++) {
        let total = 0;
        for (let j = 0; j < 4; j++) {
          signed[j] = signs & (1 << j) ? unit[c * 4 + j]! : -unit[c * 4 + j]!;
          total += signed[j]!;
        }
        // The large numbers' sum for every magnitude pattern, one add each (subset sums).
        for (let mags = 1; mags < 16; mags++) large[mags] = large[mags & (mags - 1)]! + signed[31 - Math.clz32(mags & -mags)]!;
        for (let mags = 0; mags < 16; mags++) {
          const key = c * 256 + signs + (mags << 4);
          largeT[key] = large[mags]!;
          smallT[key] = total - large[mags]!;
        }
      }
    }
    // Every candidate's estimate, then the best `limit` of them (a partial sort).
    const candidateIds = new Int32Array(wanted + (histogram[cutoff] ?? 0));
    const candidateScores = new Float32Array(candidateIds.length);
    let n = 0;
    for (let p = 0, first = 0; first < used; p++, first += PAGE_SLOTS) {
      const { bits, mags, lows, highs, ids } = this.pages[p]!;
      const count = Math.min(PAGE_SLOTS, used - first);
      for (let at = 0; at < count; at++) {
        if (distance[first + at]! > cutoff || n === candidateIds.length) continue;
        let s = 0;
        let l = 0;
        for (let w = 0, base = at * words, t = 0; w < words; w++) {
          const sb = bits[base + w]!;
          const mb = mags[base + w]!;
          for (let shift = 0; shift < 32; shift += 4, t += 256) {
            const key = ((sb >>> shift) & 15) | (((mb >>> shift) & 15) << 4);
            s += smallT[t + key]!;
            l += largeT[t + key]!;
          }
        }
        candidateIds[n] = ids[at]!;
        candidateScores[n] = s * lows[at]! + l * highs[at]!;
        n++;
      }
    }
    const order = Array.from({ length: n }, (_, i) => i);
    const limit = Math.max(1, options.limit);
    const best = n > limit ? selectTop(order, candidateScores, limit) : order;
    best.sort((a, b) => candidateScores[b]! - candidateScores[a]!);
    return best.map((i) => ({ id: candidateIds[i]!, cosine: candidateScores[i]! }));
  }
}

/** The `k` indexes of highest score, in no order (Hoare quickselect on `order`, which it reorders). */
function selectTop(order: number[], scores: Float32Array, k: number): number[] {
  let lo = 0;
  let hi = order.length - 1;
  while (lo < hi) {
    const pivot = scores[order[(lo + hi) >> 1]!]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (scores[order[i]!]! > pivot) i++;
      while (scores[order[j]!]! < pivot) j--;
      if (i <= j) {
        const swap = order[i]!;
        order[i] = order[j]!;
        order[j] = swap;
        i++;
        j--;
      }
    }
    if (k - 1 <= j) hi = j;
    else if (k - 1 >= i) lo = i;
    else break;
  }
  return order.slice(0, k);
}
/**
 * A vector from SQLite's `hex(embedding)` (the column's float32 bytes as hex),
 * decoded into `into` (reused by the caller) without allocating. Scans that read
 * thousands of embeddings (the index load, hygiene, a search's candidates) read
 * them as hex text: a blob comes back as a fresh 2 KB native buffer per row, and
 * at 100k rows that churn left ~50 MB of fragmented native memory resident, where
 * the text is ordinary garbage on the JS heap. Null when the length is not `into`'s.
 */
export function vectorFromHex(hex: string, into: Float32Array): Float32Array | null {
  if (hex.length !== into.byteLength * 2) return null;
  Buffer.from(into.buffer, into.byteOffset, into.byteLength).write(hex, 0, "hex");
  return into;
}

/** Float32 little-endian bytes (the Memory.embedding column) to a vector. */
export function fromBytes(bytes: Uint8Array): Float32Array {
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return new Float32Array(copy.buffer, 0, Math.floor(copy.byteLength / 4));
}

export function toBytes(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

/** Exact cosine of two vectors. */
export function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return 0;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0;
}

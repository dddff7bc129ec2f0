// The in-memory vector index: every embedded memory as two bits a dimension:
// its sign (for a fast Hamming pre-filter) and whether its magnitude is large,
// plus the mean magnitude of its small and of its large numbers. That is
// dims/4 + 8 bytes a memory (+ 11 for id, agent, scope and a scratch distance):
// 1M x 512 dims is ~150 MB, where int8 codes took ~590 MB and the raw floats 2 GB.
//
// A search scans the sign codes of the visible memories (popcount over dims/64
// words each), keeps the nearest `candidates` by Hamming distance, estimates
// their dot product with the query from the two bits a dimension (table reads,
// one per 4 dimensions) and returns the best `limit` estimates. The estimate is
// coarse (a 2-bit quantisation): callers ask for a few hundred and re-rank them
// exactly with the stored float vectors (search-index.ts, exactCosines).
// On tightly clustered vectors (100k x 512) the exact top 10 are within the best
// 300 estimates 98-99% of the time; on the benchmark's long-tailed corpus 72% at
// 100k (bench:memory -- --index reports it; lib/memory/README.md).
//
// The two scans run in WebAssembly (vector-kernel.wat, compiled at install into
// lib/generated/vector-kernel.wasm): the storage lives in the module's memory,
// which this class lays out and the kernel reads. JavaScript did the same scans
// several times slower (bench:memory -- --index).
//
// Adds and removes are O(1) (amortised), so the index is built once at start-up
// and then kept up to date incrementally; nothing is ever rebuilt per insert.
// Storage grows a page of 4,096 slots at a time: no copy to grow, at most one
// page unused in the index. WebAssembly memory does not shrink: pages that
// compaction empties stay allocated, kept for the next growth.
import { readFileSync } from "node:fs";
import path from "node:path";
import { AgentCodes, type IndexFilter } from "./agent-codes";
import { SlotMap } from "./slot-map";

export type VectorFilter = IndexFilter;

/** `cosine`: the index's estimate from search(); exact from exactCosines (search-index.ts). */
export type VectorHit = { id: number; cosine: number };

/** Scales `vector` to unit length in place; returns false for a zero or non-finite vector. */
export function normalize(vector: Float32Array): boolean {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i]! * vector[i]!;
  if (!(sum > 0) || !Number.isFinite(sum)) return false;
  const inv = 1 / Math.sqrt(sum);
  for (let i = 0; i < vector.length; i++) vector[i]! *= inv;
  return true;
}

/** The scans' module, built at install by scripts/build-vector-kernel.mjs. */
export const KERNEL_FILE = path.join(/*turbopackIgnore: true*/ process.cwd(), "lib", "generated", "vector-kernel.wasm");

/** vector-kernel.wat's exports; every pointer is a byte offset into the index's memory. */
type Kernel = {
  hamming(
    bits: number,
    ids: number,
    agents: number,
    swarm: number,
    dist: number,
    count: number,
    words: number,
    query: number,
    mask: number,
    wantAgent: number,
    wantSwarm: number,
    agentCode: number,
    hist: number,
    hidden: number,
  ): number;
  estimate(
    bits: number,
    mags: number,
    lows: number,
    highs: number,
    ids: number,
    dist: number,
    count: number,
    words: number,
    cutoff: number,
    tables: number,
    outIds: number,
    outScores: number,
    n: number,
    cap: number,
  ): number;
};

let kernelModule: WebAssembly.Module | null = null;

/** The compiled module (read and compiled once per process; each index instantiates it with its own memory). */
function compiledKernel(): WebAssembly.Module {
  if (!kernelModule) {
    let bytes: Uint8Array<ArrayBuffer>;
    try {
      bytes = new Uint8Array(readFileSync(KERNEL_FILE));
    } catch (error) {
      throw new Error(`The vector index's kernel ${KERNEL_FILE} is missing: npm install builds it (scripts/build-vector-kernel.mjs)`, {
        cause: error,
      });
    }
    kernelModule = new WebAssembly.Module(bytes);
  }
  return kernelModule;
}

/** Slots per storage page: 4,096 x 512 dims is 0.6 MB. Pages are never copied to grow. */
const PAGE_SHIFT = 12;
const PAGE_SLOTS = 1 << PAGE_SHIFT;
const PAGE_MASK = PAGE_SLOTS - 1;
const WASM_PAGE = 65_536;
/**
 * A number is "large" above this many times the vector's root mean square (for
 * unit vectors, 1/sqrt(dims)). Lloyd-Max's 2-bit optimum for a Gaussian is
 * 0.98; with each vector's own two levels, 0.8 measured better (bench:memory).
 */
const MAG_THRESHOLD = 0.8;
/**
 * The Hamming pre-filter counts a dimension only where the query's magnitude is
 * above this many times its root mean square. On the benchmark's long-tailed
 * corpus, whose short queries embed to vectors about half zeros, the exact top
 * 10 within the best 300 estimates went from 0.20 to 0.52 (100k x 512); on dense
 * vectors it leaves out the dimensions that add least to the dot product.
 */
const QUERY_MASK = 0.3;

/** One page of slots: where its arrays start in the index's memory (byte offsets). */
type Page = {
  /** Per slot, `words` u32: the sign bits. */
  bits: number;
  /** Per slot, `words` u32: 1 where the number's magnitude is above the vector's threshold. */
  mags: number;
  /** Per slot, f32: the mean magnitude of its small and of its large numbers. */
  lows: number;
  highs: number;
  /** Per slot, i32: the memory id (-1: free). */
  ids: number;
  /** Per slot, i32: the agent code (agentCode()). */
  agents: number;
  /** Per slot, u8: 1 for swarm scope. */
  swarm: number;
  /** Per slot, u16: the search's Hamming distance (scratch, written by each search). */
  dist: number;
  /** Typed arrays over the above, valid while the memory's buffer is `buffer` (growing the memory detaches them). */
  views: PageViews | null;
  buffer: ArrayBuffer | null;
};

type PageViews = {
  bits: Uint32Array;
  mags: Uint32Array;
  lows: Float32Array;
  highs: Float32Array;
  ids: Int32Array;
  agents: Int32Array;
  swarm: Uint8Array;
};

/** A search's scratch in the index's memory: the query's sign bits and mask, the distance histogram, the estimate tables. */
type Scratch = { query: number; mask: number; hist: number; tables: number; outIds: number; outScores: number; outCap: number };

export class VectorIndex {
  readonly dims: number;
  private readonly words: number;
  private readonly memory = new WebAssembly.Memory({ initial: 1 });
  private readonly kernel: Kernel;
  /** The next free byte of the memory (a bump allocator: pages and scratch are never freed, only reused). */
  private top = 0;
  private readonly pages: Page[] = [];
  /** Pages compaction emptied, kept for the next growth. */
  private readonly spare: Page[] = [];
  private used = 0;
  private live = 0;
  private readonly slotOf = new SlotMap();
  private readonly agentCodes = new AgentCodes();
  private scratch: Scratch | null = null;
  /** What every code is taken relative to (setCenter); null: the vectors themselves. */
  private center: Float32Array | null = null;
  /** add()'s working copy of the vector it normalises (one per index, not one per add). */
  private readonly unit: Float32Array;

  constructor(dims: number) {
    if (!Number.isInteger(dims) || dims < 8 || dims % 32 !== 0 || dims > 32_000) {
      throw new Error(`unsupported dimensions ${dims} (a multiple of 32)`);
    }
    this.dims = dims;
    this.words = dims / 32;
    this.unit = new Float32Array(dims);
    this.kernel = new WebAssembly.Instance(compiledKernel(), { index: { memory: this.memory } }).exports as unknown as Kernel;
    // A module built from an older vector-kernel.wat would read its arguments in the wrong places.
    if (this.kernel.hamming?.length !== 14 || this.kernel.estimate?.length !== 14) {
      throw new Error(`${KERNEL_FILE} is older than lib/memory/vector-kernel.wat: npm install (or npm start) compiles it again`);
    }
  }

  /** Whether the codes are taken relative to a center (setCenter). */
  get centered(): boolean {
    return this.center !== null;
  }

  get size(): number {
    return this.live;
  }

  /** Bytes held by the vector storage (pages allocated, used or not). */
  get bytes(): number {
    return (this.pages.length + this.spare.length) * this.pageBytes();
  }

  private pageBytes(): number {
    // Sign and magnitude words, two f32 levels, id, agent, swarm flag, distance.
    return PAGE_SLOTS * (this.words * 8 + 4 + 4 + 4 + 4 + 1 + 2);
  }

  /** `bytes` of the memory (16-byte aligned), growing it when needed (which detaches every view). */
  private alloc(bytes: number): number {
    const at = this.top;
    const end = at + Math.ceil(bytes / 16) * 16;
    const have = this.memory.buffer.byteLength;
    if (end > have) this.memory.grow(Math.ceil((end - have) / WASM_PAGE));
    this.top = end;
    return at;
  }

  private views(page: Page): PageViews {
    const buffer = this.memory.buffer;
    if (page.buffer !== buffer || !page.views) {
      const n = PAGE_SLOTS * this.words;
      page.views = {
        bits: new Uint32Array(buffer, page.bits, n),
        mags: new Uint32Array(buffer, page.mags, n),
        lows: new Float32Array(buffer, page.lows, PAGE_SLOTS),
        highs: new Float32Array(buffer, page.highs, PAGE_SLOTS),
        ids: new Int32Array(buffer, page.ids, PAGE_SLOTS),
        agents: new Int32Array(buffer, page.agents, PAGE_SLOTS),
        swarm: new Uint8Array(buffer, page.swarm, PAGE_SLOTS),
      };
      page.buffer = buffer;
    }
    return page.views;
  }

  /** A page laid out in one block: the arrays in the order of Page's fields, each a multiple of 16 bytes. */
  private newPage(): Page {
    let at = this.alloc(this.pageBytes());
    const take = (bytes: number) => {
      const start = at;
      at += bytes;
      return start;
    };
    const words = PAGE_SLOTS * this.words * 4;
    return {
      bits: take(words),
      mags: take(words),
      lows: take(PAGE_SLOTS * 4),
      highs: take(PAGE_SLOTS * 4),
      ids: take(PAGE_SLOTS * 4),
      agents: take(PAGE_SLOTS * 4),
      swarm: take(PAGE_SLOTS),
      dist: take(PAGE_SLOTS * 2),
      views: null,
      buffer: null,
    };
  }

  /**
   * Sets the point every code is taken relative to, before the first add: the mean
   * of a sample of the unit vectors to come (search-index.ts sets it from the first
   * page it loads). Vectors that share a strong common direction (the common words of
   * a long-tailed vocabulary; real embeddings lean one way too) then differ in their
   * sign bits where they differ in meaning. Rankings are unchanged in principle: an
   * estimate is of the dot product less the query's with the center, and search()
   * adds that back. False (and nothing changes) once a vector was added.
   */
  setCenter(mean: Float32Array): boolean {
    if (mean.length !== this.dims || !mean.every(Number.isFinite)) throw new Error(`a center has ${this.dims} finite numbers`);
    if (this.used > 0 || this.center) return false;
    this.center = Float32Array.from(mean);
    return true;
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

  /**
   * An index being loaded to take this one's place (search-index.ts, startIndexLoad):
   * every add and remove here is made there too, so what changes while it loads is
   * not lost when it takes over.
   */
  mirror: VectorIndex | null = null;

  /** Adds or replaces one memory's vector (any length-`dims` vector; it is normalised here). */
  add(id: number, vector: Float32Array, meta: { agentId: string | null; scope: string }): boolean {
    this.mirror?.add(id, vector, meta);
    if (vector.length !== this.dims) return false;
    const unit = this.unit;
    unit.set(vector);
    if (!normalize(unit)) return false;
    // Codes of the vector less the center (its exact dot product with a query differs
    // from the vector's by the query's dot product with the center, the same for every
    // memory): what the memories do not share is what their sign bits then tell apart.
    const center = this.center;
    let squares = 1;
    if (center) {
      squares = 0;
      for (let i = 0; i < unit.length; i++) {
        unit[i]! -= center[i]!;
        squares += unit[i]! * unit[i]!;
      }
    }
    this.drop(id);
    if (this.used === this.pages.length * PAGE_SLOTS) this.compactOrGrow();
    const slot = this.used++;
    this.slotOf.set(id, slot);
    this.live++;
    const page = this.views(this.pages[slot >> PAGE_SHIFT]!);
    const at = slot & PAGE_MASK;
    page.ids[at] = id;
    page.agents[at] = this.agentCode(meta.agentId);
    page.swarm[at] = meta.scope === "swarm" ? 1 : 0;
    const bitBase = at * this.words;
    for (let w = 0; w < this.words; w++) {
      page.bits[bitBase + w] = 0;
      page.mags[bitBase + w] = 0;
    }
    const threshold = MAG_THRESHOLD * Math.sqrt(squares / this.dims);
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
    this.mirror?.remove(id);
    this.drop(id);
  }

  /** Frees the id's slot, here only (not in the mirror). */
  private drop(id: number): void {
    const slot = this.slotOf.get(id);
    if (slot < 0) return;
    this.slotOf.delete(id);
    this.views(this.pages[slot >> PAGE_SHIFT]!).ids[slot & PAGE_MASK] = -1;
    this.live--;
  }

  /** Full: squeeze out removed slots when a quarter or more are free, else add a page. */
  private compactOrGrow() {
    if (this.live < this.used * 0.75) {
      const { words } = this;
      let to = 0;
      for (let from = 0; from < this.used; from++) {
        const src = this.views(this.pages[from >> PAGE_SHIFT]!);
        const f = from & PAGE_MASK;
        if (src.ids[f]! < 0) continue;
        if (to !== from) {
          const dst = this.views(this.pages[to >> PAGE_SHIFT]!);
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
      // Pages left empty are set aside (keeping one spare in the list to add into).
      this.spare.push(...this.pages.splice(Math.min(this.pages.length, (to >> PAGE_SHIFT) + 1)));
      if (this.used < this.pages.length * PAGE_SLOTS) return;
    }
    const page = this.spare.pop() ?? this.newPage();
    this.views(page).ids.fill(-1);
    this.pages.push(page);
  }

  /** The search's scratch with room for `cap` candidates (grown by doubling; the old block is not reused). */
  private searchScratch(cap: number): Scratch {
    if (!this.scratch) {
      const query = this.alloc(this.words * 4);
      const mask = this.alloc(this.words * 4);
      const hist = this.alloc((this.dims + 2) * 4);
      // Per 4 dimensions, 256 (small, large) f32 pairs: 2 KiB.
      const tables = this.alloc((this.dims / 4) * 2048);
      this.scratch = { query, mask, hist, tables, outIds: 0, outScores: 0, outCap: 0 };
    }
    const scratch = this.scratch;
    if (cap > scratch.outCap) {
      scratch.outCap = Math.max(cap, scratch.outCap * 2, 1024);
      scratch.outIds = this.alloc(scratch.outCap * 4);
      scratch.outScores = this.alloc(scratch.outCap * 4);
    }
    return scratch;
  }

  /**
   * The `limit` visible memories of best estimated cosine (two bits a dimension),
   * chosen from the `candidates` nearest by Hamming distance of the sign codes.
   * The estimate orders roughly: re-rank a few hundred exactly (exactCosines in search-index.ts).
   */
  search(query: Float32Array, options: { limit: number; candidates?: number; filter: VectorFilter }): VectorHit[] {
    if (query.length !== this.dims || this.live === 0) return [];
    const unit = Float32Array.from(query);
    if (!normalize(unit)) return [];
    const { filter } = options;
    const { words, dims, kernel, used } = this;
    let scratch = this.searchScratch(0);
    let buffer = this.memory.buffer;
    const qbits = new Uint32Array(buffer, scratch.query, words);
    qbits.fill(0);
    for (let i = 0; i < dims; i++) if (unit[i]! > 0) qbits[i >> 5]! |= 1 << (i & 31);
    // Only the query's own numbers count in the Hamming distance: where it is zero (or
    // nearly: QUERY_MASK) a memory's sign adds nothing to the dot product. A short query's
    // vector is often mostly zeros; counting them kept the wrong candidates.
    const qmask = new Uint32Array(buffer, scratch.mask, words);
    qmask.fill(0);
    const floor = QUERY_MASK / Math.sqrt(dims);
    for (let i = 0; i < dims; i++) if (Math.abs(unit[i]!) > floor) qmask[i >> 5]! |= 1 << (i & 31);
    const histogram = new Uint32Array(buffer, scratch.hist, dims + 2);
    histogram.fill(0);

    // Pass 1: the Hamming distance of every visible memory, and a histogram of them.
    const hidden = dims + 1;
    const wantAgent = filter.agent ? 1 : 0;
    const wantSwarm = filter.swarm ? 1 : 0;
    let visible = 0;
    for (let p = 0, first = 0; first < used; p++, first += PAGE_SLOTS) {
      const page = this.pages[p]!;
      const count = Math.min(PAGE_SLOTS, used - first);
      visible += kernel.hamming(
        page.bits,
        page.ids,
        page.agents,
        page.swarm,
        page.dist,
        count,
        words,
        scratch.query,
        scratch.mask,
        wantAgent,
        wantSwarm,
        filter.agentCode,
        scratch.hist,
        hidden,
      );
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
    const cap = wanted + (histogram[cutoff] ?? 0);
    // Growing the scratch may grow the memory, which detaches the views above.
    scratch = this.searchScratch(cap);
    buffer = this.memory.buffer;

    // Pass 2: the candidates' estimated dot product. Tables of the query's partial
    // dot products per 4-number chunk, keyed by the chunk's 4 sign bits and 4
    // magnitude bits: the small numbers' and the large numbers' signed sums of
    // the query, which each memory's two levels scale.
    const chunks = dims / 4;
    const tables = new Float32Array(buffer, scratch.tables, chunks * 512);
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
          const key = (c * 256 + signs + (mags << 4)) * 2;
          tables[key] = total - large[mags]!;
          tables[key + 1] = large[mags]!;
        }
      }
    }
    // Every candidate's estimate, then the best `limit` of them (a partial sort).
    let n = 0;
    for (let p = 0, first = 0; first < used; p++, first += PAGE_SLOTS) {
      const page = this.pages[p]!;
      const count = Math.min(PAGE_SLOTS, used - first);
      n = kernel.estimate(
        page.bits,
        page.mags,
        page.lows,
        page.highs,
        page.ids,
        page.dist,
        count,
        words,
        cutoff,
        scratch.tables,
        scratch.outIds,
        scratch.outScores,
        n,
        cap,
      );
    }
    const candidateIds = new Int32Array(buffer, scratch.outIds, n);
    const candidateScores = new Float32Array(buffer, scratch.outScores, n);
    const order = Array.from({ length: n }, (_, i) => i);
    const limit = Math.max(1, options.limit);
    const best = n > limit ? selectTop(order, candidateScores, limit) : order;
    best.sort((a, b) => candidateScores[b]! - candidateScores[a]!);
    // The codes are of each vector less the center: the query's dot product with it is the rest.
    let offset = 0;
    if (this.center) for (let i = 0; i < dims; i++) offset += unit[i]! * this.center[i]!;
    return best.map((i) => ({ id: candidateIds[i]!, cosine: candidateScores[i]! + offset }));
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
 * thousands of embeddings (the index load, hygiene's walk) read them as hex
 * text: a blob comes back as a fresh 2 KB native buffer per row, and at 100k
 * rows that churn left ~50 MB of fragmented native memory resident, where
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

/**
 * A stored vector read as a blob (the Memory.embedding column's float32 bytes, as
 * toBytes wrote them) seen as floats: a view on the bytes when they are aligned (a
 * blob better-sqlite3 hands back is a buffer of its own), else copied into
 * `scratch`. Null when the length is not `scratch`'s. For a search's few hundred
 * candidates; the scans over thousands of rows read hex (vectorFromHex).
 */
export function vectorFromBytes(bytes: Uint8Array, scratch: Float32Array): Float32Array | null {
  if (bytes.byteLength !== scratch.byteLength) return null;
  if (bytes.byteOffset % 4 === 0) return new Float32Array(bytes.buffer, bytes.byteOffset, scratch.length);
  new Uint8Array(scratch.buffer, scratch.byteOffset, scratch.byteLength).set(bytes);
  return scratch;
}

/** The cosine of `unit` (of length 1: see normalize) with `b`; a third cheaper than cosine() when one side is used many times. */
export function cosineWithUnit(unit: Float32Array, b: Float32Array): number {
  if (unit.length !== b.length) return 0;
  let dot = 0;
  let nb = 0;
  for (let i = 0; i < unit.length; i++) {
    const x = b[i]!;
    dot += unit[i]! * x;
    nb += x * x;
  }
  return nb > 0 ? dot / Math.sqrt(nb) : 0;
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

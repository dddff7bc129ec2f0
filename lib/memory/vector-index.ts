// The in-memory vector index: every embedded memory as a 1-bit sign code (for a
// fast Hamming pre-filter) and an int8 code (for an accurate dot product), about
// 70 bytes + dims bytes per memory: 100k x 512 dims is ~58 MB, not the 200 MB of
// raw floats. A search scans the sign codes of the visible memories (popcount
// over dims/32 words each), keeps the nearest `candidates` by Hamming distance,
// scores those with the int8 dot product and returns the best `limit`; the
// caller re-ranks them exactly with the stored float vectors. Adds and removes
// are O(1) (amortised), so the index is built once at start-up and then kept
// up to date incrementally; nothing is ever rebuilt per insert.
export type VectorFilter = {
  /** Include agent-scope memories (of `agentCode` only, when it is >= 0). */
  agent: boolean;
  /** Include swarm-scope memories. */
  swarm: boolean;
  /** Restrict agent-scope memories to one agent (-1: every agent). */
  agentCode: number;
};

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

export class VectorIndex {
  readonly dims: number;
  private readonly words: number;
  private capacity = 0;
  private used = 0;
  private live = 0;
  private bits = new Uint32Array(0);
  private codes = new Int8Array(0);
  private scales = new Float32Array(0);
  private ids = new Int32Array(0);
  private agents = new Int32Array(0);
  private swarm = new Uint8Array(0);
  private readonly slotOf = new Map<number, number>();
  private readonly agentCodes = new Map<string, number>();

  constructor(dims: number) {
    if (!Number.isInteger(dims) || dims < 8 || dims % 32 !== 0) throw new Error(`unsupported dimensions ${dims} (a multiple of 32)`);
    this.dims = dims;
    this.words = dims / 32;
  }

  get size(): number {
    return this.live;
  }

  /** A stable small integer for an agent id (used in filters). */
  agentCode(agentId: string | null): number {
    if (!agentId) return -1;
    let code = this.agentCodes.get(agentId);
    if (code === undefined) {
      code = this.agentCodes.size;
      this.agentCodes.set(agentId, code);
    }
    return code;
  }

  /** Looks a code up without creating one (-2: an agent with nothing indexed). */
  findAgentCode(agentId: string): number {
    return this.agentCodes.get(agentId) ?? -2;
  }

  has(id: number): boolean {
    return this.slotOf.has(id);
  }

  private grow(min: number) {
    const capacity = Math.max(min, this.capacity === 0 ? min : Math.ceil(this.capacity * 1.5), 1024);
    const copy = <T extends Uint32Array | Int8Array | Float32Array | Int32Array | Uint8Array>(
      old: T,
      make: (n: number) => T,
      per: number,
    ) => {
      const next = make(capacity * per);
      next.set(old.subarray(0, this.used * per));
      return next;
    };
    this.bits = copy(this.bits, (n) => new Uint32Array(n), this.words);
    this.codes = copy(this.codes, (n) => new Int8Array(n), this.dims);
    this.scales = copy(this.scales, (n) => new Float32Array(n), 1);
    this.ids = copy(this.ids, (n) => new Int32Array(n), 1);
    this.agents = copy(this.agents, (n) => new Int32Array(n), 1);
    this.swarm = copy(this.swarm, (n) => new Uint8Array(n), 1);
    this.capacity = capacity;
  }

  /** Makes room for `count` vectors at once (a start-up load knows its size: no 1.5x overshoot). */
  reserve(count: number): void {
    if (count > this.capacity) this.grow(count);
  }

  /** Adds or replaces one memory's vector (any length-`dims` vector; it is normalised here). */
  add(id: number, vector: Float32Array, meta: { agentId: string | null; scope: string }): boolean {
    if (vector.length !== this.dims) return false;
    const unit = Float32Array.from(vector);
    if (!normalize(unit)) return false;
    this.remove(id);
    if (this.used === this.capacity) this.compactOrGrow();
    const slot = this.used++;
    this.slotOf.set(id, slot);
    this.live++;
    this.ids[slot] = id;
    this.agents[slot] = this.agentCode(meta.agentId);
    this.swarm[slot] = meta.scope === "swarm" ? 1 : 0;
    let max = 0;
    for (let i = 0; i < this.dims; i++) max = Math.max(max, Math.abs(unit[i]!));
    const scale = max / 127;
    this.scales[slot] = scale;
    const codeBase = slot * this.dims;
    const bitBase = slot * this.words;
    for (let w = 0; w < this.words; w++) this.bits[bitBase + w] = 0;
    for (let i = 0; i < this.dims; i++) {
      this.codes[codeBase + i] = Math.round(unit[i]! / scale);
      if (unit[i]! > 0) this.bits[bitBase + (i >> 5)]! |= 1 << (i & 31);
    }
    return true;
  }

  remove(id: number): void {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    this.slotOf.delete(id);
    this.ids[slot] = -1;
    this.live--;
  }

  private compactOrGrow() {
    if (this.live < this.used * 0.75) {
      let to = 0;
      for (let from = 0; from < this.used; from++) {
        if (this.ids[from]! < 0) continue;
        if (to !== from) {
          this.bits.copyWithin(to * this.words, from * this.words, (from + 1) * this.words);
          this.codes.copyWithin(to * this.dims, from * this.dims, (from + 1) * this.dims);
          this.scales[to] = this.scales[from]!;
          this.ids[to] = this.ids[from]!;
          this.agents[to] = this.agents[from]!;
          this.swarm[to] = this.swarm[from]!;
          this.slotOf.set(this.ids[to]!, to);
        }
        to++;
      }
      this.used = to;
      if (this.used < this.capacity) return;
    }
    this.grow(this.used + 1);
  }

  /**
   * The `limit` nearest visible memories by approximate cosine (int8), chosen
   * from the `candidates` nearest by Hamming distance of the sign codes.
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
    const bits = this.bits;
    const ids = this.ids;
    const swarm = this.swarm;
    const agents = this.agents;
    const wantSwarm = filter.swarm;
    const wantAgent = filter.agent;
    const agentCode = filter.agentCode;
    const distance = new Uint16Array(used);
    const histogram = new Uint32Array(dims + 2);
    const hidden = dims + 1;
    let visible = 0;
    for (let slot = 0, base = 0; slot < used; slot++, base += words) {
      const ok = ids[slot]! >= 0 && (swarm[slot] === 1 ? wantSwarm : wantAgent && (agentCode === -1 || agents[slot] === agentCode));
      if (!ok) {
        distance[slot] = hidden;
        continue;
      }
      let d = 0;
      for (let w = 0; w < words; w++) {
        const x = bits[base + w]! ^ qbits[w]!;
        d += POPCOUNT16[x & 0xffff]! + POPCOUNT16[x >>> 16]!;
      }
      distance[slot] = d;
      histogram[d]!++;
      visible++;
    }
    if (visible === 0) return [];

    // The distance cut-off that keeps about `candidates` memories.
    // Default: 3% of the visible memories (at least 1,000, at most 5,000).
    const wanted = Math.min(
      visible,
      Math.max(options.candidates ?? Math.min(5000, Math.max(1000, Math.ceil(visible * 0.03))), options.limit),
    );
    let cutoff = 0;
    for (let seen = 0; cutoff <= dims; cutoff++) {
      seen += histogram[cutoff]!;
      if (seen >= wanted) break;
    }

    // Pass 2: int8 dot product of the candidates, keeping the best `limit` in a
    // small sorted buffer (no object per candidate, no sort of thousands).
    const codes = this.codes;
    const scales = this.scales;
    const limit = Math.max(1, options.limit);
    const topIds = new Int32Array(limit);
    const topScores = new Float64Array(limit).fill(Number.NEGATIVE_INFINITY);
    let kept = 0;
    for (let slot = 0; slot < used; slot++) {
      if (distance[slot]! > cutoff) continue;
      const base = slot * dims;
      let a0 = 0;
      let a1 = 0;
      let a2 = 0;
      let a3 = 0;
      for (let i = 0; i < dims; i += 4) {
        a0 += codes[base + i]! * unit[i]!;
        a1 += codes[base + i + 1]! * unit[i + 1]!;
        a2 += codes[base + i + 2]! * unit[i + 2]!;
        a3 += codes[base + i + 3]! * unit[i + 3]!;
      }
      const score = (a0 + a1 + a2 + a3) * scales[slot]!;
      if (kept === limit && score <= topScores[limit - 1]!) continue;
      let at = kept < limit ? kept++ : limit - 1;
      while (at > 0 && topScores[at - 1]! < score) {
        topScores[at] = topScores[at - 1]!;
        topIds[at] = topIds[at - 1]!;
        at--;
      }
      topScores[at] = score;
      topIds[at] = ids[slot]!;
    }
    const hits: VectorHit[] = [];
    for (let i = 0; i < kept; i++) hits.push({ id: topIds[i]!, cosine: topScores[i]! });
    return hits;
  }
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

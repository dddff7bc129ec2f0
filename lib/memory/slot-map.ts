// Memory id -> storage slot for the in-memory indexes (vector-index.ts,
// keyword-index.ts). Memory ids are SQLite rowids, handed out in order, so they
// are dense: a typed array indexed by id costs 4 bytes per id, where a Map costs
// ~40 bytes per entry (about 40 MB per index at 1M memories). An id far past
// what the array covers (a sparse id space) goes to a Map instead, so one stray
// large id never allocates a huge array.
const ABSENT = -1;

export class SlotMap {
  private dense = new Int32Array(1024).fill(ABSENT);
  private readonly sparse = new Map<number, number>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** The id's slot, or -1. */
  get(id: number): number {
    if (id >= 0 && id < this.dense.length) return this.dense[id]!;
    return this.sparse.get(id) ?? ABSENT;
  }

  has(id: number): boolean {
    return this.get(id) !== ABSENT;
  }

  set(id: number, slot: number): void {
    if (Number.isInteger(id) && id >= 0 && id < this.dense.length) {
      if (this.dense[id] === ABSENT) this.count++;
      this.dense[id] = slot;
      return;
    }
    // Grow the array when the id is near what it covers (ids come in order), else keep it aside.
    if (Number.isInteger(id) && id >= 0 && id < Math.max(this.dense.length * 2, this.count * 4 + 65_536) && id < 2 ** 30) {
      const next = new Int32Array(Math.max(id + 1, Math.ceil(this.dense.length * 1.5))).fill(ABSENT);
      next.set(this.dense);
      this.dense = next;
      for (const [sparseId, sparseSlot] of this.sparse) {
        if (sparseId < next.length) {
          next[sparseId] = sparseSlot;
          this.sparse.delete(sparseId);
        }
      }
      this.set(id, slot);
      return;
    }
    if (!this.sparse.has(id)) this.count++;
    this.sparse.set(id, slot);
  }

  delete(id: number): void {
    if (id >= 0 && id < this.dense.length) {
      if (this.dense[id] !== ABSENT) this.count--;
      this.dense[id] = ABSENT;
    } else if (this.sparse.delete(id)) this.count--;
  }

  /** Bytes of the id array (the Map, rarely used, is not counted). */
  get bytes(): number {
    return this.dense.byteLength;
  }
}

// Following "MemoryChange" on the PostgreSQL store: the log a trigger writes for
// every memory inserted, re-embedded, archived, updated or deleted, by any app
// instance (prisma/postgresql/migrations/20261126110201_memory_changes). Each
// in-process index of an instance (the keyword index, keyword-search.pg.ts; the
// vector index, search-index.pg.ts) follows it with a ChangeFollower: before a
// search it reads the changes after the last one it saw and hands the changed
// memories' ids to the index, which re-reads their rows. When nothing changed
// that is one indexed range read.
//
// A change's "seq" is taken when the row changes, not when its transaction
// commits, so seq 11 can be visible while seq 10 is still uncommitted. Numbers
// skipped over are remembered as gaps and asked for again on each catch-up
// (`seq = ANY(gaps)`) until they show up or GAP_WINDOW_MS passes (a rolled-back
// write leaves a gap that never fills). Memory writes are short transactions, far
// shorter than that window.
import "server-only";
import { pgSql, type Sql } from "@/lib/pg";

/** Changes read per round of a catch-up. */
const CHANGES_PAGE = 5000;
/** How long a skipped change number is asked for again. */
const GAP_WINDOW_MS = 5 * 60_000;
/** Gaps tracked at most (a huge rolled-back batch is not worth asking for one by one). */
const MAX_GAPS = 2000;
/** Changes re-read after a (re)load, for writes that committed while it ran. */
const RELOAD_OVERLAP = 1000;
/** The leader prunes the change log after a day (hygiene.pg.ts); a follower that slept half of that must reload. */
export const CHANGE_LOG_DAYS = 1;
const STALE_MS = (CHANGE_LOG_DAYS * 86_400_000) / 2;

export class ChangeFollower {
  private lastSeq = 0;
  private readonly gaps = new Map<number, number>();
  private lastRun = Date.now();
  private running: Promise<void> | null = null;
  private queued: Promise<void> | null = null;

  /** `apply` brings the index up to date for these memories (each re-read: changed, hidden or gone). */
  constructor(private readonly apply: (sql: Sql, memoryIds: number[]) => Promise<void>) {}

  /** Called before a (re)load: the changes from a little before where the log stands now are applied after it. */
  async startFrom(sql: Sql): Promise<void> {
    const top = await sql.get<{ seq: number | null }>('SELECT max("seq") AS "seq" FROM "MemoryChange"');
    this.lastSeq = Math.max(0, (top?.seq ?? 0) - RELOAD_OVERLAP);
    this.gaps.clear();
    this.lastRun = Date.now();
  }

  /** True when the log may have been pruned past what this follower saw: its index must be loaded again. */
  get stale(): boolean {
    return Date.now() - this.lastRun > STALE_MS;
  }

  /**
   * Applies every change committed before the call. Calls made while one runs
   * wait for the next run, so a search always sees the writes committed before it asked.
   */
  catchUp(): Promise<void> {
    if (!this.running) {
      this.running = this.run().finally(() => {
        this.running = null;
      });
      return this.running;
    }
    this.queued ??= this.running.then(() => {
      this.queued = null;
      return this.catchUp();
    });
    return this.queued;
  }

  private async run(): Promise<void> {
    const sql = pgSql();
    for (;;) {
      const now = Date.now();
      for (const [seq, since] of this.gaps) if (now - since > GAP_WINDOW_MS) this.gaps.delete(seq);
      const gaps = [...this.gaps.keys()];
      // The new changes and the gaps are two primary-key reads (an OR of both would scan the index).
      const changes = await sql.all<{ seq: number; id: number }>(
        `WITH c AS (
           (SELECT "seq", "memoryId" AS "id" FROM "MemoryChange" WHERE "seq" > $1 ORDER BY "seq" LIMIT ${CHANGES_PAGE})
           ${gaps.length > 0 ? 'UNION ALL (SELECT "seq", "memoryId" AS "id" FROM "MemoryChange" WHERE "seq" = ANY($2::bigint[]))' : ""}
         )
         SELECT "seq", "id" FROM c ORDER BY "seq"`,
        gaps.length > 0 ? [this.lastSeq, gaps] : [this.lastSeq],
      );
      // Applied first, then taken as seen: a failed apply leaves them for the next catch-up.
      const before = { lastSeq: this.lastSeq, gaps: new Map(this.gaps) };
      let newest = 0;
      for (const change of changes) {
        if (change.seq <= this.lastSeq) this.gaps.delete(change.seq);
        else {
          for (let missing = this.lastSeq + 1; missing < change.seq && this.gaps.size < MAX_GAPS; missing++) this.gaps.set(missing, now);
          this.lastSeq = change.seq;
          newest++;
        }
      }
      try {
        if (changes.length > 0) await this.apply(sql, [...new Set(changes.map((change) => change.id))]);
      } catch (error) {
        this.lastSeq = before.lastSeq;
        this.gaps.clear();
        for (const [seq, since] of before.gaps) this.gaps.set(seq, since);
        throw error;
      }
      this.lastRun = now;
      if (newest < CHANGES_PAGE) return;
    }
  }
}

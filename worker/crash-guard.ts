// An agent that breaks at once on every run (a missing API key, a harness that crashes
// on start) would fail every task it is given within seconds: the queue, not the agent,
// would pay. After `after` tasks in a row that each failed within `quickMs` of the
// claim, the worker stops claiming for a while (worker/README.md,
// "When the worker itself is broken"); the pause doubles while the streak goes on.
import type { TaskEnd } from "./task-runner";

export type CrashGuardOptions = {
  /** Quick failures in a row before claiming pauses (0: never). */
  after: number;
  /** A failure sooner than this after the claim counts as quick. */
  quickMs: number;
  /** The first pause; each further quick failure doubles it, up to maxPauseMs. */
  pauseMs: number;
  maxPauseMs?: number;
};

export class CrashGuard {
  private streak = 0;
  constructor(private readonly options: CrashGuardOptions) {}

  /** Quick failures in a row so far. */
  get quickFailures(): number {
    return this.streak;
  }

  /**
   * Records how a task ended and how long after its claim; answers how long to
   * pause claiming (0: go on).
   */
  record(end: TaskEnd, elapsedMs: number): number {
    if (end !== "failed") {
      // A completed task says the agent works; so does a give-back, mostly the agent's own
      // `swarm release` (a task it declines is not a crash). A cancelled or lost one says nothing.
      if (end === "completed" || end === "released") this.streak = 0;
      return 0;
    }
    if (elapsedMs >= this.options.quickMs) {
      this.streak = 0;
      return 0;
    }
    this.streak += 1;
    const { after, pauseMs, maxPauseMs = 15 * 60_000 } = this.options;
    if (after <= 0 || this.streak < after) return 0;
    return Math.min(maxPauseMs, pauseMs * 2 ** (this.streak - after));
  }
}

// Task lifecycle settings from the environment, read when used so tests can set
// them per server (startTestServer({ env })).
import "server-only";

function positive(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

/** An in-progress task with no heartbeat for this long is stalled (default 10 min). */
export const stallTimeoutMs = () => positive("SWARMDECK_STALL_TIMEOUT_MS", 10 * 60_000);
/** A task that stalls on its last allowed attempt fails (default 3). */
export const maxAttempts = () => Math.floor(positive("SWARMDECK_MAX_ATTEMPTS", 3));
/** How often the stall sweep runs (default 15 s). */
export const stallSweepMs = () => positive("SWARMDECK_STALL_SWEEP_MS", 15_000);
/** agent.lastSeenAt is written at most this often per agent (polls are frequent). */
export const LAST_SEEN_EVERY_MS = 5_000;
/**
 * A waiting poll re-checks the database this often even without a wake-up, for
 * work another app process (or a direct database write) created.
 */
export const POLL_SAFETY_RECHECK_MS = 5_000;

// Task lifecycle settings from the environment, read when used so tests can set
// them per server (startTestServer({ env })).
import "server-only";

function positive(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

/** An in-progress task with no heartbeat for this long is stalled (default 10 min). */
export const stallTimeoutMs = () => positive("SWARMDECK_STALL_TIMEOUT_MS", 10 * 60_000);
/** Attempts a task gets (a give-back and a stall each use one); the last one ending without a result fails it (default 3). */
export const maxAttempts = () => Math.floor(positive("SWARMDECK_MAX_ATTEMPTS", 3));
/**
 * After a give-back or a stall, the agent whose attempt it was waits this long
 * before it is offered the task again: SWARMDECK_RETRY_BACKOFF_MS (default 30 s)
 * doubled per attempt used, at most 10 minutes.
 */
export const retryBackoffMs = (attempts: number) =>
  Math.min(positive("SWARMDECK_RETRY_BACKOFF_MS", 30_000) * 2 ** Math.max(0, attempts - 1), 10 * 60_000);
/** How often the stall sweep runs (default 15 s). */
export const stallSweepMs = () => positive("SWARMDECK_STALL_SWEEP_MS", 15_000);
/** agent.lastSeenAt is written at most this often per agent (polls are frequent). */
export const LAST_SEEN_EVERY_MS = 5_000;
/**
 * A waiting poll re-checks the database this often even without a wake-up, for
 * work another app process (or a direct database write) created.
 */
export const POLL_SAFETY_RECHECK_MS = 5_000;

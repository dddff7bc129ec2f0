// The clock of the scheduler, the alerts and the metrics ("today", "this week").
// Real time by default. Tests shift it with SWARMDECK_CLOCK_OFFSET_MS (read when
// the server starts: the clock then runs at normal speed from the shifted
// instant), so a schedule can be brought up to its slot without waiting for it.
// Unit tests pass their own `now` to the functions instead.
export type Clock = () => number;

function offsetFromEnv(): number {
  const raw = process.env.SWARMDECK_CLOCK_OFFSET_MS;
  if (!raw) return 0;
  const offset = Number(raw);
  if (!Number.isFinite(offset)) throw new Error("SWARMDECK_CLOCK_OFFSET_MS must be a number of milliseconds");
  return offset;
}

const OFFSET = offsetFromEnv();

export const systemClock: Clock = () => Date.now() + OFFSET;

// How much one agent may store per period through the worker API: memories (and a
// lead's learnings), identity writes and proposals, offered tasks, tool writes and
// built-in tool changes, and registrations (each one an audit entry). A runaway or
// hijacked agent in a loop, or a worker restarted in one, hits a 429 (rate_limited,
// with Retry-After) instead of filling the database, the audit log or the review
// queue. Counted in this process (rate-limiter-flexible's memory store) on SQLite's
// one instance, in the database on PostgreSQL ("RateLimit",
// prisma/postgresql/migrations/20261126110400_rate_limits), so an agent's requests
// spread over several instances count once; the limits are per agent, per hour, and
// can be changed through the environment.
import "server-only";
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from "rate-limiter-flexible";
import { usesPostgres } from "@/lib/db";
import { rateLimited } from "@/lib/errors";
import { pgPool } from "@/lib/pg";

export type WorkerQuota = "memories" | "proposals" | "offered_tasks" | "tool_changes" | "registrations";

const PERIOD_SECONDS = 60 * 60;

function perHour(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return Number.isInteger(value) && value > 0 ? value : fallback;
}

const LIMITS: Record<WorkerQuota, { limit: number; what: string }> = {
  memories: { limit: perHour("SWARMDECK_WORKER_MEMORIES_PER_HOUR", 600), what: "memories stored" },
  proposals: { limit: perHour("SWARMDECK_WORKER_PROPOSALS_PER_HOUR", 60), what: "identity writes and proposals" },
  offered_tasks: { limit: perHour("SWARMDECK_WORKER_OFFERED_TASKS_PER_HOUR", 60), what: "tasks offered" },
  // A built-in change is compiled and test-run on the app's own host (lib/tools/builtin-changes.ts).
  tool_changes: { limit: perHour("SWARMDECK_WORKER_TOOL_CHANGES_PER_HOUR", 60), what: "tool writes and built-in tool changes" },
  // A worker registers once when it starts (worker/worker-loop.ts), and waits for the Retry-After when refused
  // (with --once it exits 1): room for a worker started every 30 s, not for one restarted in a tight loop.
  registrations: { limit: perHour("SWARMDECK_WORKER_REGISTRATIONS_PER_HOUR", 120), what: "worker registrations" },
};

let limiters: Record<WorkerQuota, RateLimiterAbstract> | undefined;

function limiter(quota: WorkerQuota): RateLimiterAbstract {
  limiters ??= Object.fromEntries(
    Object.entries(LIMITS).map(([name, { limit }]) => {
      const options = { keyPrefix: `worker-${name}`, points: limit, duration: PERIOD_SECONDS };
      return [
        name,
        usesPostgres()
          ? new RateLimiterPostgres({ ...options, storeClient: pgPool(), storeType: "pool", tableName: "RateLimit", tableCreated: true })
          : new RateLimiterMemory(options),
      ];
    }),
  ) as unknown as Record<WorkerQuota, RateLimiterAbstract>;
  return limiters[quota];
}

/** Counts one more for this agent, or throws 429 when the agent is at its limit for the period. */
export async function chargeWorkerQuota(quota: WorkerQuota, agentId: string): Promise<void> {
  try {
    await limiter(quota).consume(agentId);
  } catch (error) {
    if (!(error instanceof RateLimiterRes)) throw error;
    const { limit, what } = LIMITS[quota];
    throw rateLimited(`This agent reached its limit of ${limit} ${what} per hour`, error.msBeforeNext, {
      quota,
      limit,
      periodSeconds: PERIOD_SECONDS,
    });
  }
}

// Next.js calls register() once per server process. Background jobs run in the
// Node.js runtime only; each domain's job module registers itself on import.
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  await import("@/lib/tasks/stall-sweeper");
  await import("@/lib/schedules/job");
  await import("@/lib/alerts/job");
  await import("@/lib/memory/jobs");
  const { startBackgroundJobs } = await import("@/lib/jobs/background");
  startBackgroundJobs();
  // The production server (scripts/serve.mjs) answers the hot routes (the worker's
  // task loop, memory search) through this before handing a request to Next.
  const { serveFastPath } = await import("@/lib/api/fast-path");
  (globalThis as { swarmdeckFastPath?: typeof serveFastPath }).swarmdeckFastPath = serveFastPath;
}

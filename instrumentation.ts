// Next.js calls register() once per server process. Background jobs run in the
// Node.js runtime only; each domain's job module registers itself on import.
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  await import("@/lib/tasks/stall-sweeper");
  await import("@/lib/schedules/job");
  await import("@/lib/alerts/job");
  await import("@/lib/notifications/job");
  await import("@/lib/memory/jobs");
  const { startBackgroundJobs } = await import("@/lib/jobs/background");
  startBackgroundJobs();
  // The production server (scripts/serve.mjs) offers each request to this before
  // handing it to Next: the hot routes (the worker's task loop, memory search) are
  // answered directly (lib/api/fast-path.ts; it takes only exact paths with known
  // methods and well-formed escapes), odd methods and malformed paths are refused in
  // the one error shape (lib/api/front-door.ts).
  const { serveFastPath } = await import("@/lib/api/fast-path");
  const { refuseUnroutable } = await import("@/lib/api/front-door");
  (globalThis as { swarmdeckFastPath?: typeof serveFastPath }).swarmdeckFastPath = (req, res) =>
    serveFastPath(req, res) || refuseUnroutable(req, res);
}

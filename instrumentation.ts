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
}

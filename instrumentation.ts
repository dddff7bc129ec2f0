// Next.js calls register() once per server process: start the background jobs
// (scheduler, alerts, ...) in the Node.js runtime only.
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  await import("@/lib/schedules/job");
  await import("@/lib/alerts/job");
  const { startBackgroundJobs } = await import("@/lib/jobs/background");
  startBackgroundJobs();
}

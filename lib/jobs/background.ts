// Background work inside the app process (started once from instrumentation.ts):
// each domain registers a start function here. Jobs must tolerate several app
// processes (they coordinate through the database, never through memory).
import "server-only";

type Job = { name: string; start: () => () => void };

const jobs: Job[] = [];

export function registerJob(job: Job): void {
  jobs.push(job);
}

let stops: Array<() => void> | null = null;

export function startBackgroundJobs(): void {
  if (stops || process.env.SWARMDECK_DISABLE_JOBS === "1") return;
  stops = jobs.map((job) => {
    console.log(`[swarmdeck] background job started: ${job.name}`);
    return job.start();
  });
}

export function stopBackgroundJobs(): void {
  for (const stop of stops ?? []) stop();
  stops = null;
}

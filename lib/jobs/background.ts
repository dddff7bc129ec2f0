// Background work inside the app process (started once from instrumentation.ts):
// each domain registers a start function here. Jobs must tolerate several app
// processes (they coordinate through the database, never through memory); a
// periodic job runs once per cluster, on the instance that leads (leader.ts),
// unless it keeps this instance's own state in step (`everyInstance`).
import "server-only";
import { isLeader } from "./leader";

type Job = { name: string; start: () => () => void };

const jobs: Job[] = [];

export function registerJob(job: Job): void {
  jobs.push(job);
}

/**
 * A job that runs `run` every `everyMs` (first after `firstAfterMs`, else after one
 * interval), never two runs at once, logging a failure instead of stopping.
 */
export function registerPeriodicJob(job: {
  name: string;
  everyMs: number;
  firstAfterMs?: number;
  /** Runs on every instance (in-process state), not only on the leader. */
  everyInstance?: boolean;
  run: () => Promise<unknown>;
}): void {
  registerJob({
    name: job.name,
    start() {
      let running = false;
      const tick = async () => {
        if (running) return;
        running = true;
        try {
          if (job.everyInstance || (await isLeader())) await job.run();
        } catch (error) {
          console.error(`[swarmdeck] background job ${job.name} failed:`, error);
        } finally {
          running = false;
        }
      };
      const first = job.firstAfterMs === undefined ? undefined : setTimeout(tick, job.firstAfterMs);
      const timer = setInterval(tick, job.everyMs);
      first?.unref();
      timer.unref();
      return () => {
        clearTimeout(first);
        clearInterval(timer);
      };
    },
  });
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

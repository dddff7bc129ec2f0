// The scheduler as a background job: a tick every 15 s (SWARMDECK_SCHEDULER_TICK_MS),
// reading the injectable clock (lib/schedules/clock.ts).
import "server-only";
import { registerPeriodicJob } from "@/lib/jobs/background";
import { runDueSchedules } from "./scheduler";

registerPeriodicJob({
  name: "scheduler",
  everyMs: Number(process.env.SWARMDECK_SCHEDULER_TICK_MS) || 15_000,
  firstAfterMs: 500,
  async run() {
    for (const firing of await runDueSchedules()) {
      const skipped = firing.skips.length ? `, ${firing.skips.length} skipped` : "";
      console.log(`[swarmdeck] schedule ${firing.scheduleId} fired: ${firing.status}, ${firing.taskIds.length} task(s)${skipped}`);
    }
  },
});

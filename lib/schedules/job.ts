// The scheduler as a background job: a tick every 15 s (SWARMDECK_SCHEDULER_TICK_MS),
// reading the injectable clock (lib/schedules/clock.ts).
import "server-only";
import { registerJob } from "@/lib/jobs/background";
import { runDueSchedules } from "./scheduler";

const tickMs = Number(process.env.SWARMDECK_SCHEDULER_TICK_MS) || 15_000;

registerJob({
  name: "scheduler",
  start() {
    let running = false;
    const tick = async () => {
      if (running) return;
      running = true;
      try {
        const firings = await runDueSchedules();
        for (const firing of firings) {
          console.log(`[swarmdeck] schedule ${firing.scheduleId} fired: ${firing.status}${firing.taskId ? ` task ${firing.taskId}` : ""}`);
        }
      } catch (error) {
        console.error("[swarmdeck] scheduler tick failed:", error);
      } finally {
        running = false;
      }
    };
    const first = setTimeout(tick, 500);
    const timer = setInterval(tick, tickMs);
    return () => {
      clearTimeout(first);
      clearInterval(timer);
    };
  },
});

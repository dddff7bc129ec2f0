// The alert evaluator as a background job: once at start, then every minute
// (SWARMDECK_ALERT_INTERVAL_MS). Several app processes may run it: the Alert
// rows, read and written in one transaction, keep one open alert per scope.
import "server-only";
import { registerJob } from "@/lib/jobs/background";
import { evaluateAlerts } from "./alerts";

const interval = Number(process.env.SWARMDECK_ALERT_INTERVAL_MS) || 60_000;

registerJob({
  name: "alerts",
  start() {
    let running = false;
    const tick = async () => {
      if (running) return;
      running = true;
      try {
        await evaluateAlerts();
      } catch (error) {
        console.error("[swarmdeck] alert evaluation failed:", error);
      } finally {
        running = false;
      }
    };
    const first = setTimeout(tick, 2_000);
    const timer = setInterval(tick, interval);
    return () => {
      clearTimeout(first);
      clearInterval(timer);
    };
  },
});

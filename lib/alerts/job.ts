// The alert evaluator as a background job: once at start, then every minute
// (SWARMDECK_ALERT_INTERVAL_MS). Several app processes may run it: the Alert
// rows, read and written in one transaction, keep one open alert per scope.
import "server-only";
import { registerPeriodicJob } from "@/lib/jobs/background";
import { evaluateAlerts } from "./alerts";

registerPeriodicJob({
  name: "alerts",
  everyMs: Number(process.env.SWARMDECK_ALERT_INTERVAL_MS) || 60_000,
  firstAfterMs: 2_000,
  run: evaluateAlerts,
});

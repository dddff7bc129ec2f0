// The waiting-work notification as a background job: a check every minute
// (SWARMDECK_NOTIFY_CHECK_MS); how often it may actually notify is the interval
// of lib/notifications/waiting-work.ts.
import "server-only";
import { registerPeriodicJob } from "@/lib/jobs/background";
import { notifyWaitingWork } from "./waiting-work";

registerPeriodicJob({
  name: "waiting-work notifications",
  everyMs: Number(process.env.SWARMDECK_NOTIFY_CHECK_MS) || 60_000,
  firstAfterMs: 5_000,
  run: () => notifyWaitingWork(),
});

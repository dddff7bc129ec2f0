import { operatorRoute } from "@/lib/api/handler";
import { cronPreviewQuerySchema } from "@/lib/contracts/schedules";
import { systemClock } from "@/lib/schedules/clock";
import { cronProblem, describeCron, intervalProblem, upcomingSlots } from "@/lib/schedules/cron";
import { currentMinIntervalMs } from "@/lib/schedules/settings";

// GET /api/v1/schedules/preview?cron=&timezone= – is it valid, what it means, and its next five runs
export const GET = operatorRoute("viewer", async ({ query }) => {
  const { cron, timezone } = query(cronPreviewQuerySchema);
  const problem = cron.trim()
    ? (cronProblem(cron, timezone) ?? intervalProblem(cron, timezone, await currentMinIntervalMs(), systemClock()))
    : "A cron expression is required";
  if (problem) return { valid: false, error: problem, description: null, next: [] };
  return {
    valid: true,
    error: null,
    description: describeCron(cron),
    next: upcomingSlots(cron, timezone, systemClock(), 5).map((at) => new Date(at).toISOString()),
  };
});

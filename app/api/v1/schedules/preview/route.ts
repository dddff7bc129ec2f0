import { operatorRoute } from "@/lib/api/handler";
import { cronPreviewQuerySchema } from "@/lib/contracts/schedules";
import { systemClock } from "@/lib/schedules/clock";
import { cronProblem, cronProblemField, describeCron, intervalProblem, upcomingSlots } from "@/lib/schedules/cron";
import { currentMinIntervalMs } from "@/lib/schedules/settings";

// GET /api/v1/schedules/preview?cron=&timezone= – is it valid (if not, why, and which field: cron or timezone),
// what it means, and its next five runs
export const GET = operatorRoute("viewer", async ({ query }) => {
  const { cron, timezone } = query(cronPreviewQuerySchema);
  const problem = cron.trim()
    ? (cronProblem(cron, timezone) ?? intervalProblem(cron, timezone, await currentMinIntervalMs(), systemClock()))
    : "A cron expression is required";
  if (problem) {
    const field = cron.trim() ? cronProblemField(timezone) : "cron";
    return { valid: false, error: problem, field, description: null, next: [] };
  }
  return {
    valid: true,
    error: null,
    field: null,
    description: describeCron(cron),
    next: upcomingSlots(cron, timezone, systemClock(), 5).map((at) => new Date(at).toISOString()),
  };
});

import { operatorRoute } from "@/lib/api/handler";
import { idSchema } from "@/lib/contracts/common";
import { scheduleRunsQuerySchema } from "@/lib/contracts/schedules";
import { listScheduleRuns } from "@/lib/schedules/schedules";

// GET /api/v1/schedules/{id}/runs?limit=&cursor= – a schedule's runs, newest first: when, trigger, outcome, tasks (with their state) and skipped targets with the reason
export const GET = operatorRoute("viewer", async ({ params, query }) => {
  return listScheduleRuns({ id: idSchema.parse(params.id), ...query(scheduleRunsQuerySchema) });
});

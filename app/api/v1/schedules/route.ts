import { created, operatorRoute } from "@/lib/api/handler";
import { createScheduleBodySchema } from "@/lib/contracts/schedules";
import { createSchedule, listSchedules } from "@/lib/schedules/schedules";

// GET /api/v1/schedules – every schedule with its last and next run
export const GET = operatorRoute("viewer", async () => ({ schedules: await listSchedules() }));

// POST /api/v1/schedules – create a schedule (disabled unless `enabled: true`)
export const POST = operatorRoute("operator", async ({ body, actor }) => {
  const input = await body(createScheduleBodySchema);
  return created({ schedule: await createSchedule({ input, actor }) });
});

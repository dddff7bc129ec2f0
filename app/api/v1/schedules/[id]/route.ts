import { operatorRoute } from "@/lib/api/handler";
import { idSchema } from "@/lib/contracts/common";
import { patchScheduleBodySchema } from "@/lib/contracts/schedules";
import { deleteSchedule, getSchedule, updateSchedule } from "@/lib/schedules/schedules";

// GET /api/v1/schedules/{id} – a schedule and its last 20 runs
export const GET = operatorRoute("viewer", async ({ params }) => getSchedule({ id: idSchema.parse(params.id) }));

// PATCH /api/v1/schedules/{id} – change timing, target, task template, or enable/disable
export const PATCH = operatorRoute("operator", async ({ params, body, actor }) => {
  const id = idSchema.parse(params.id);
  const input = await body(patchScheduleBodySchema);
  return { schedule: await updateSchedule({ id, input, actor }) };
});

// DELETE /api/v1/schedules/{id} – delete a schedule and its run history (tasks it created stay)
export const DELETE = operatorRoute("operator", async ({ params, actor }) => {
  await deleteSchedule({ id: idSchema.parse(params.id), actor });
});

import { created, operatorRoute } from "@/lib/api/handler";
import { idSchema } from "@/lib/contracts/common";
import { ApiError, notFound } from "@/lib/errors";
import { runScheduleNow } from "@/lib/schedules/scheduler";

// POST /api/v1/schedules/{id}/run – fire the schedule now (a manual run; the cron timing is unchanged):
// 201 with the tasks it created and the targets it skipped (and why); 200 when every target was skipped
export const POST = operatorRoute("operator", async ({ params, actor }) => {
  const firing = await runScheduleNow({ id: idSchema.parse(params.id), actor });
  if (!firing) throw notFound("Schedule");
  if (firing.status === "failed") throw new ApiError("conflict", firing.error ?? "The run failed", { runId: firing.runId });
  const run = {
    id: firing.runId,
    status: firing.status,
    taskId: firing.taskId,
    taskIds: firing.taskIds,
    skips: firing.skips,
    scheduledFor: new Date(firing.scheduledFor).toISOString(),
  };
  return firing.taskIds.length > 0 ? created({ run }) : { run };
});

import { workerRoute } from "@/lib/api/handler";
import { heartbeatBodySchema } from "@/lib/contracts/tasks";
import { workerAnswer } from "@/lib/tasks/worker-response";
import { heartbeatTask } from "@/lib/tasks/worker-tasks";

// POST /api/worker/tasks/{id}/heartbeat – still alive (optional progress note) → {cancelled, status}
export const POST = workerRoute(async ({ params, body, principal }) => {
  const { progress, lastActivity } = await body(heartbeatBodySchema);
  return workerAnswer(await heartbeatTask({ principal, taskId: params.id ?? "", progress, lastActivity }));
});

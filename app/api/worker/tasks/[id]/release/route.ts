import { workerRoute } from "@/lib/api/handler";
import { releaseBodySchema } from "@/lib/contracts/tasks";
import { workerAnswer } from "@/lib/tasks/worker-response";
import { releaseByWorker } from "@/lib/tasks/worker-tasks";

// POST /api/worker/tasks/{id}/release – the worker is stopping: the task goes back to its agent or the pool
export const POST = workerRoute(async ({ params, body, principal }) => {
  const { reason } = await body(releaseBodySchema);
  return workerAnswer({ task: await releaseByWorker({ principal, taskId: params.id ?? "", reason }) });
});

import { workerRoute } from "@/lib/api/handler";
import { failBodySchema } from "@/lib/contracts/tasks";
import { workerAnswer } from "@/lib/tasks/worker-response";
import { finishByWorker } from "@/lib/tasks/worker-tasks";

// POST /api/worker/tasks/{id}/fail – the task failed, with the reason (indexed into memory)
export const POST = workerRoute(async ({ params, body, principal }) => {
  const { failureReason, output, session } = await body(failBodySchema);
  const task = await finishByWorker({
    principal,
    taskId: params.id ?? "",
    session,
    finish: { status: "failed", failureReason, output: output ?? null },
  });
  return workerAnswer({ task });
});

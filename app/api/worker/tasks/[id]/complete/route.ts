import { workerRoute } from "@/lib/api/handler";
import { completeBodySchema } from "@/lib/contracts/tasks";
import { workerAnswer } from "@/lib/tasks/worker-response";
import { finishByWorker } from "@/lib/tasks/worker-tasks";

// POST /api/worker/tasks/{id}/complete – the task is done, with its output (indexed into memory)
export const POST = workerRoute(async ({ params, body, principal }) => {
  const { output, summary, session } = await body(completeBodySchema);
  const task = await finishByWorker({
    principal,
    taskId: params.id ?? "",
    session,
    finish: { status: "completed", output, summary: summary ?? null },
  });
  return workerAnswer({ task });
});

import { created, workerRoute } from "@/lib/api/handler";
import { chargeWorkerQuota } from "@/lib/api/worker-quotas";
import { workerCreateTaskBodySchema } from "@/lib/contracts/tasks";
import { createTaskByWorker } from "@/lib/tasks/worker-tasks";

// POST /api/worker/tasks – the agent proposes a task (offered, for an operator to accept)
export const POST = workerRoute(async ({ body, principal }) => {
  const input = await body(workerCreateTaskBodySchema);
  await chargeWorkerQuota("offered_tasks", principal.agent.id);
  return created({ task: await createTaskByWorker({ principal, input }) });
});

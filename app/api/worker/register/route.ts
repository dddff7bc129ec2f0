import { registerWorker } from "@/lib/agents/worker-registration";
import { workerRoute } from "@/lib/api/handler";
import { chargeWorkerQuota } from "@/lib/api/worker-quotas";
import { registerBodySchema } from "@/lib/contracts/worker";

// POST /api/worker/register – a worker announces itself; answers with its agent and poll interval
export const POST = workerRoute(async ({ body, principal, actor }) => {
  const input = await body(registerBodySchema);
  await chargeWorkerQuota("registrations", principal.agent.id);
  return registerWorker({ principal, input, actor });
});

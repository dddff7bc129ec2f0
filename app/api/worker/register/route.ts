import { registerWorker } from "@/lib/agents/worker-registration";
import { workerRoute } from "@/lib/api/handler";
import { registerBodySchema } from "@/lib/contracts/worker";

// POST /api/worker/register – a worker announces itself; answers with its agent and poll interval
export const POST = workerRoute(async ({ body, principal, actor }) => {
  const input = await body(registerBodySchema);
  return registerWorker({ principal, input, actor });
});

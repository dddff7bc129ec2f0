import { reportSetupStatus } from "@/lib/agents/setup-status";
import { workerRoute } from "@/lib/api/handler";
import { setupStatusBodySchema } from "@/lib/contracts/worker";

// POST /api/worker/setup-status – how the worker's run of the setup script went (shown on the agent, alerted on failure)
export const POST = workerRoute(async ({ body, principal, actor }) => {
  const input = await body(setupStatusBodySchema);
  return reportSetupStatus({ principal, input, actor });
});

import { accepted, created, workerRoute } from "@/lib/api/handler";
import { chargeWorkerQuota } from "@/lib/api/worker-quotas";
import { workerBuiltinChangeBodySchema } from "@/lib/contracts/tools";
import { stageBuiltinAsAgent } from "@/lib/tools/builtin-changes";

// POST /api/worker/builtin-tools – change a built-in for this agent: staged on a branch, tested, merged (201) or
// abandoned (200, with the error); where tool changes are proposals, tested and proposed (202) for an operator
export const POST = workerRoute(async ({ body, principal, actor }) => {
  const input = await body(workerBuiltinChangeBodySchema);
  await chargeWorkerQuota("tool_changes", principal.agent.id);
  const change = await stageBuiltinAsAgent({ agent: principal.agent, body: input, actor });
  return change.status === "merged" ? created(change) : change.status === "proposed" ? accepted(change) : change;
});

import { accepted, workerRoute } from "@/lib/api/handler";
import { toolNameSchema, workerDeleteToolBodySchema } from "@/lib/contracts/tools";
import { deleteToolAsAgent } from "@/lib/tools/agent-tools";

// DELETE /api/worker/tools/{name}?reason=&taskId= – unregister one of this agent's tools (history stays): 200, or 202 pending review
export const DELETE = workerRoute(async ({ params, query, principal, actor }) => {
  const name = toolNameSchema.parse(params.name);
  const { reason, taskId } = query(workerDeleteToolBodySchema);
  const { httpStatus, result } = await deleteToolAsAgent({ agent: principal.agent, name, reason, taskId, actor });
  return httpStatus === 202 ? accepted(result) : result;
});

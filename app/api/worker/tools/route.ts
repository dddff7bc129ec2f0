import { accepted, created, workerRoute } from "@/lib/api/handler";
import { chargeWorkerQuota } from "@/lib/api/worker-quotas";
import { workerWriteToolBodySchema } from "@/lib/contracts/tools";
import { listActiveTools, toolPolicyFor, writeToolAsAgent } from "@/lib/tools/agent-tools";
import { listBuiltinOverrides } from "@/lib/tools/builtin-changes";

// GET /api/worker/tools – this agent's registered tools (with compiled code) and what it may change
export const GET = workerRoute(async ({ principal }) => {
  const [tools, policy, builtins] = await Promise.all([
    listActiveTools({ agentId: principal.agent.id }),
    toolPolicyFor(principal.agent),
    listBuiltinOverrides({ agentId: principal.agent.id }),
  ]);
  return { tools, policy, lead: principal.agent.role === "lead", builtins };
});

// POST /api/worker/tools – a tool the worker compiled and tested: 201 applied, 202 pending review, 403, 409 built-in name
export const POST = workerRoute(async ({ body, principal, actor }) => {
  const input = await body(workerWriteToolBodySchema, 4 * 1024 * 1024);
  await chargeWorkerQuota("tool_changes", principal.agent.id);
  const { httpStatus, result } = await writeToolAsAgent({ agent: principal.agent, body: input, actor });
  return httpStatus === 202 ? accepted(result) : created(result);
});

import { workerRoute } from "@/lib/api/handler";
import { toolCallReportBodySchema, toolNameSchema } from "@/lib/contracts/tools";
import { recordToolCall } from "@/lib/tools/agent-tools";

// POST /api/worker/tools/{name}/calls – one call of the tool happened (counts and the last failure, for operators)
export const POST = workerRoute(async ({ params, body, principal }) => {
  const name = toolNameSchema.parse(params.name);
  const report = await body(toolCallReportBodySchema);
  await recordToolCall({ agentId: principal.agent.id, name, ok: report.ok, error: report.error });
});

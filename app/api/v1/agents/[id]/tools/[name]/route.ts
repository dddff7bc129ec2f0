import { operatorRoute } from "@/lib/api/handler";
import { toolNameSchema, updateToolBodySchema } from "@/lib/contracts/tools";
import { deleteToolAsOperator, getAgentTool, setToolEnabled } from "@/lib/tools/tool-admin";

// GET /api/v1/agents/{id}/tools/{name} – one tool with its newest 200 versions (source, test input and output, who and why)
export const GET = operatorRoute("viewer", async ({ params }) =>
  getAgentTool({ agentId: params.id ?? "", name: toolNameSchema.parse(params.name) }),
);

// PATCH /api/v1/agents/{id}/tools/{name} – enable or disable it
export const PATCH = operatorRoute("operator", async ({ params, body, actor }) => {
  const { enabled } = await body(updateToolBodySchema);
  return setToolEnabled({ agentId: params.id ?? "", name: toolNameSchema.parse(params.name), enabled, actor });
});

// DELETE /api/v1/agents/{id}/tools/{name} – unregister it; its versions stay
export const DELETE = operatorRoute("operator", async ({ params, actor }) => {
  await deleteToolAsOperator({ agentId: params.id ?? "", name: toolNameSchema.parse(params.name), actor });
});

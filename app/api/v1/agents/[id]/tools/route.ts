import { operatorRoute } from "@/lib/api/handler";
import { listAgentTools } from "@/lib/tools/tool-admin";

// GET /api/v1/agents/{id}/tools – the agent's own tools, deleted ones included
export const GET = operatorRoute("viewer", async ({ params }) => ({ tools: await listAgentTools({ agentId: params.id ?? "" }) }));

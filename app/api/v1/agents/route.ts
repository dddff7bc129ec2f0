import { createAgent, listAgents } from "@/lib/agents/agents";
import { created, operatorRoute } from "@/lib/api/handler";
import { createAgentBodySchema } from "@/lib/contracts/agents";

// GET /api/v1/agents – every active agent
export const GET = operatorRoute("viewer", async () => ({ agents: await listAgents() }));

// POST /api/v1/agents – create an agent with its default identity files
export const POST = operatorRoute("operator", async ({ body, actor }) => {
  const input = await body(createAgentBodySchema);
  return created({ agent: await createAgent({ input, actor }) });
});

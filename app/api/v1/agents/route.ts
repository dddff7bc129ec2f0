import { createAgent, listAgents } from "@/lib/agents/agents";
import { created, operatorRoute } from "@/lib/api/handler";
import { createAgentBodySchema } from "@/lib/contracts/agents";
import { forbidden } from "@/lib/errors";
import { offerForNewAgent } from "@/lib/schedules/lead-templates";

// GET /api/v1/agents – every active agent
export const GET = operatorRoute("viewer", async () => ({ agents: await listAgents() }));

// POST /api/v1/agents – create an agent with its default identity files (a profile other than standard: admin only);
// for the swarm's first lead the answer carries `scheduleOffer`, the learning-loop templates to install
// (POST /api/v1/schedules/templates), else null
export const POST = operatorRoute("operator", async ({ body, actor, principal }) => {
  const input = await body(createAgentBodySchema);
  if (input.securityProfile !== undefined && input.securityProfile !== "standard" && principal.role !== "admin") {
    throw forbidden("Only an admin may choose a security profile other than standard");
  }
  const agent = await createAgent({ input, actor });
  // The swarm's first lead: the learning-loop schedules are offered with it (installed only when accepted).
  return created({ agent, scheduleOffer: await offerForNewAgent(agent) });
});

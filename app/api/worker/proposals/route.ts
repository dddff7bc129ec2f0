import { workerRoute } from "@/lib/api/handler";
import { listAgentProposals } from "@/lib/identity/decisions";

// GET /api/worker/proposals – this agent's latest proposals and the decisions on them (`swarm identity proposals`)
export const GET = workerRoute(async ({ principal }) => ({ proposals: await listAgentProposals({ agentId: principal.agent.id }) }));

import { operatorRoute } from "@/lib/api/handler";
import { listIdentityFiles } from "@/lib/identity/read";

// GET /api/v1/agents/{id}/identity – every identity file of the agent, current content
export const GET = operatorRoute("viewer", async ({ params }) => ({ files: await listIdentityFiles({ agentId: params.id ?? "" }) }));

import { created, operatorRoute } from "@/lib/api/handler";
import { createTokenBodySchema } from "@/lib/contracts/tokens";
import { createWorkerToken, listWorkerTokens } from "@/lib/tokens/worker-tokens";

// GET /api/v1/agents/{id}/tokens – the agent's worker tokens, never their secrets
export const GET = operatorRoute("admin", async ({ params }) => ({ tokens: await listWorkerTokens({ agentId: params.id ?? "" }) }));

// POST /api/v1/agents/{id}/tokens – a new worker token; the secret is in this answer only
export const POST = operatorRoute("admin", async ({ params, body, actor, principal }) => {
  const { name } = await body(createTokenBodySchema);
  return created(await createWorkerToken({ agentId: params.id ?? "", name, actor, createdById: principal.userId }));
});

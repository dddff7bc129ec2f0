import { archiveAgent, findAgent, toAgentDto, updateAgent } from "@/lib/agents/agents";
import { operatorRoute } from "@/lib/api/handler";
import { updateAgentBodySchema } from "@/lib/contracts/agents";

// GET /api/v1/agents/{id} – one agent
export const GET = operatorRoute("viewer", async ({ params }) => ({ agent: toAgentDto(await findAgent({ id: params.id ?? "" })) }));

// PATCH /api/v1/agents/{id} – rename, describe, change role; the security profile is admin-only
export const PATCH = operatorRoute("operator", async ({ params, body, actor, principal }) => {
  const input = await body(updateAgentBodySchema);
  return { agent: await updateAgent({ id: params.id ?? "", input, actor, role: principal.role }) };
});

// DELETE /api/v1/agents/{id} – archive: tokens revoked, open proposals closed, history kept
export const DELETE = operatorRoute("operator", async ({ params, actor, principal }) => {
  await archiveAgent({ id: params.id ?? "", actor, reviewerId: principal.userId });
});

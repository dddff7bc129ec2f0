import { created, leadRoute } from "@/lib/api/handler";
import { chargeWorkerQuota } from "@/lib/api/worker-quotas";
import { leadLearningBodySchema } from "@/lib/contracts/lead";
import { resolveAgentRef } from "@/lib/lead/swarm-view";
import { injectLearning } from "@/lib/memory/learnings";

// POST /api/worker/learnings – lead only: a learning for one agent (targetAgentId or targetAgent by name) or the swarm (scope "swarm")
export const POST = leadRoute("inject learnings", async ({ body, principal, actor }) => {
  const { targetAgentId, targetAgent, scope, ...input } = await body(leadLearningBodySchema);
  await chargeWorkerQuota("memories", principal.agent.id);
  const ref = targetAgentId ?? targetAgent;
  const target = scope === "agent" && ref ? await resolveAgentRef(ref) : null;
  const result = await injectLearning({
    input: { ...input, targetAgentId: target?.id ?? null },
    actor,
    fromAgent: { id: principal.agent.id, name: principal.agent.name },
  });
  return created(result);
});

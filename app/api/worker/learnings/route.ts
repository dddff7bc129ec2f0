import { created, workerRoute } from "@/lib/api/handler";
import { learningBodySchema } from "@/lib/contracts/memory";
import { forbidden } from "@/lib/errors";
import { injectLearning } from "@/lib/memory/learnings";

// POST /api/worker/learnings – a lead agent's learning for one worker (lead only)
export const POST = workerRoute(async ({ body, principal, actor }) => {
  if (principal.agent.role !== "lead") throw forbidden("Only a lead agent may inject learnings");
  const input = await body(learningBodySchema);
  const result = await injectLearning({ input, actor, fromAgent: { id: principal.agent.id, name: principal.agent.name } });
  return created(result);
});

import { created, operatorRoute } from "@/lib/api/handler";
import { learningBodySchema } from "@/lib/contracts/memory";
import { injectLearning } from "@/lib/memory/learnings";

// POST /api/v1/memories/learnings – an operator injects a learning into one agent (as lead feedback)
export const POST = operatorRoute("operator", async ({ body, actor }) => {
  const input = await body(learningBodySchema);
  return created(await injectLearning({ input, actor, fromAgent: null }));
});

import { created, workerRoute } from "@/lib/api/handler";
import { chargeWorkerQuota } from "@/lib/api/worker-quotas";
import { workerCreateMemoryBodySchema } from "@/lib/contracts/memory";
import { forbidden } from "@/lib/errors";
import { createMemories } from "@/lib/memory/memory-store";
import { workerMemory } from "@/lib/memory/routes";
import { assertOwnTask } from "@/lib/tasks/task-owner";

// POST /api/worker/memories – store a memory for the calling agent (chunked) → 201 {ids}
export const POST = workerRoute(async ({ body, principal, actor }) => {
  const input = await body(workerCreateMemoryBodySchema);
  // Lead feedback goes into other agents' prompts under "Feedback from your lead"
  // (lib/memory/lead-feedback.ts): only a lead's learnings make it, with the lead's checks.
  if (input.source === "lead_feedback") {
    throw forbidden("Lead feedback comes only from a lead agent's learnings (POST /api/worker/learnings)");
  }
  await assertOwnTask(principal.agent.id, input.taskId);
  await chargeWorkerQuota("memories", principal.agent.id);
  const { ids } = await createMemories({ items: [workerMemory(input, principal.agent.id)], actor });
  return created({ ids });
});

import { workerRoute } from "@/lib/api/handler";
import { searchMemoryBodySchema } from "@/lib/contracts/memory";
import { ensureMemoryJobs } from "@/lib/memory/jobs";
import { searchAnswer } from "@/lib/memory/routes";
import { searchMemories } from "@/lib/memory/search";

// POST /api/worker/memories/search – the calling agent's own and the swarm's memories (a lead: all)
export const POST = workerRoute(async ({ body, principal }) => {
  const input = await body(searchMemoryBodySchema);
  ensureMemoryJobs();
  const { results, mode } = await searchMemories({
    ...input,
    viewer: { kind: "agent", agentId: principal.agent.id, isLead: principal.agent.role === "lead" },
    record: { kind: "search", agentId: principal.agent.id },
  });
  return searchAnswer({ results, mode });
});

import { operatorRoute } from "@/lib/api/handler";
import { operatorSearchBodySchema } from "@/lib/contracts/memory";
import { ensureMemoryJobs } from "@/lib/memory/jobs";
import { searchAnswer } from "@/lib/memory/routes";
import { searchMemories } from "@/lib/memory/search";

// POST /api/v1/memories/search – search every memory (optionally one agent's and the swarm's)
export const POST = operatorRoute("viewer", async ({ body }) => {
  const input = await body(operatorSearchBodySchema);
  ensureMemoryJobs();
  const { results, mode, fallbackReason } = await searchMemories({
    ...input,
    viewer: { kind: "operator" },
    record: { kind: "search", agentId: input.agentId ?? null },
  });
  return searchAnswer({ results, mode, fallbackReason });
});

import { created, operatorRoute } from "@/lib/api/handler";
import { listMemoriesQuerySchema, operatorCreateMemoryBodySchema } from "@/lib/contracts/memory";
import { listMemories } from "@/lib/memory/memories";
import { createMemories } from "@/lib/memory/memory-store";
import { operatorMemories } from "@/lib/memory/routes";

// GET /api/v1/memories – memories, newest first, filtered by agentId/scope/source/q, cursor-paged
export const GET = operatorRoute("viewer", async ({ query }) => listMemories({ filter: query(listMemoriesQuerySchema) }));

// POST /api/v1/memories – store one memory or {items: [...]} (up to 500) in one transaction
export const POST = operatorRoute("operator", async ({ body, actor }) => {
  const input = await body(operatorCreateMemoryBodySchema, 16 * 1024 * 1024);
  const { ids, deduplicated } = await createMemories({ items: await operatorMemories(input), actor });
  return created({ ids, deduplicated });
});

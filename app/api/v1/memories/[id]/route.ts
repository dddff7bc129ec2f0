import { operatorRoute } from "@/lib/api/handler";
import { notFound } from "@/lib/errors";
import { getMemory } from "@/lib/memory/memories";
import { deleteMemory } from "@/lib/memory/memory-store";
import { parseMemoryId } from "@/lib/memory/routes";

// GET /api/v1/memories/{id} – one memory in full
export const GET = operatorRoute("viewer", async ({ params }) => {
  const memory = await getMemory({ id: parseMemoryId(params.id) });
  if (!memory) throw notFound("Memory");
  return { memory };
});

// DELETE /api/v1/memories/{id} – delete one memory (audited)
export const DELETE = operatorRoute("operator", async ({ params, actor }) => {
  if (!(await deleteMemory({ id: parseMemoryId(params.id), actor }))) throw notFound("Memory");
});

import { z } from "zod";
import { operatorRoute } from "@/lib/api/handler";
import { deleteConfig, listConfig, putConfig } from "@/lib/config/swarm-config";
import { configKeySchema, configScopeSchema, getConfigQuerySchema, putConfigBodySchema } from "@/lib/contracts/config";

const deleteConfigQuerySchema = z.object({ scope: configScopeSchema, scopeId: z.string().max(512).optional(), key: configKeySchema });

// GET /api/v1/config – config entries, filtered by scope, scopeId, key; secret values come back null
export const GET = operatorRoute("viewer", async ({ query }) => ({ entries: await listConfig(query(getConfigQuerySchema)) }));

// PUT /api/v1/config – set one entry (secret entries: admin only)
export const PUT = operatorRoute("operator", async ({ body, actor, principal }) => {
  const input = await body(putConfigBodySchema);
  return { entry: await putConfig({ input, actor, role: principal.role }) };
});

// DELETE /api/v1/config – remove one entry (secret entries: admin only)
export const DELETE = operatorRoute("operator", async ({ query, actor, principal }) => {
  await deleteConfig({ address: query(deleteConfigQuerySchema), actor, role: principal.role });
});

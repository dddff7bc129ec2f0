import { created, operatorRoute } from "@/lib/api/handler";
import { createApiTokenBodySchema } from "@/lib/contracts/tokens";
import { createApiToken, listApiTokens } from "@/lib/tokens/api-tokens";

// GET /api/v1/tokens – every operator API token with its owner, never the secrets
export const GET = operatorRoute("admin", async () => ({ tokens: await listApiTokens() }));

// POST /api/v1/tokens – a new operator API token (for yourself, or for `userId`); the secret is in this answer only
export const POST = operatorRoute("admin", async ({ body, actor, principal }) => {
  const input = await body(createApiTokenBodySchema);
  return created(await createApiToken({ name: input.name, userId: input.userId ?? principal.userId, actor }));
});

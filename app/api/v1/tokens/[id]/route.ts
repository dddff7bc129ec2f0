import { operatorRoute } from "@/lib/api/handler";
import { revokeApiToken } from "@/lib/tokens/api-tokens";

// DELETE /api/v1/tokens/{id} – revoke an operator API token at once
export const DELETE = operatorRoute("admin", async ({ params, actor }) => {
  await revokeApiToken({ id: params.id ?? "", actor });
});

import { operatorRoute } from "@/lib/api/handler";
import { revokeWorkerToken } from "@/lib/tokens/worker-tokens";

// DELETE /api/v1/agents/{id}/tokens/{tokenId} – revoke a worker token at once
export const DELETE = operatorRoute("admin", async ({ params, actor }) => {
  await revokeWorkerToken({ agentId: params.id ?? "", tokenId: params.tokenId ?? "", actor });
});

import { operatorRoute } from "@/lib/api/handler";
import { rollbackBodySchema } from "@/lib/contracts/identity";
import { kindParam, operatorAuthor } from "@/lib/identity/route-helpers";
import { rollbackIdentity } from "@/lib/identity/writes";

// POST /api/v1/agents/{id}/identity/{kind}/rollback – append a version with an earlier version's content
export const POST = operatorRoute("operator", async ({ params, body, principal, actor }) => {
  const kind = kindParam(params.kind);
  const input = await body(rollbackBodySchema);
  return rollbackIdentity({
    agentId: params.id ?? "",
    kind,
    versionId: input.versionId,
    reason: input.reason,
    author: operatorAuthor(principal),
    actor,
  });
});

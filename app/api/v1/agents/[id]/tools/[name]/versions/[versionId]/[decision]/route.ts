import { operatorRoute } from "@/lib/api/handler";
import { reviewToolChangeBodySchema, toolNameSchema } from "@/lib/contracts/tools";
import { notFound } from "@/lib/errors";
import { reviewToolChange } from "@/lib/tools/tool-admin";

// POST /api/v1/agents/{id}/tools/{name}/versions/{versionId}/approve|reject – decide on a change the agent proposed
export const POST = operatorRoute("operator", async ({ params, body, actor, principal }) => {
  const decision = params.decision;
  if (decision !== "approve" && decision !== "reject") throw notFound("Route");
  const { note } = await body(reviewToolChangeBodySchema);
  return reviewToolChange({
    agentId: params.id ?? "",
    name: toolNameSchema.parse(params.name),
    versionId: params.versionId ?? "",
    decision,
    note,
    actor,
    reviewerId: principal.userId,
  });
});

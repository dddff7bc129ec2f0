import { operatorRoute } from "@/lib/api/handler";
import { reviewToolChangeBodySchema } from "@/lib/contracts/tools";
import { notFound } from "@/lib/errors";
import { reviewBuiltinChange } from "@/lib/tools/builtin-changes";

// POST /api/v1/agents/{id}/builtin-tools/{changeId}/approve|reject – decide on a built-in change the agent proposed;
// approving stages it (branch, test, merge or abandon) and answers with the outcome
export const POST = operatorRoute("operator", async ({ params, body, actor, principal }) => {
  const decision = params.decision;
  if (decision !== "approve" && decision !== "reject") throw notFound("Route");
  const { note } = await body(reviewToolChangeBodySchema);
  return reviewBuiltinChange({
    agentId: params.id ?? "",
    changeId: params.changeId ?? "",
    decision,
    note,
    actor,
    reviewerId: principal.userId,
  });
});

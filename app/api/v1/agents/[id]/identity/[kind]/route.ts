import { operatorRoute } from "@/lib/api/handler";
import { putIdentityBodySchema } from "@/lib/contracts/identity";
import { getIdentityFile } from "@/lib/identity/read";
import { kindParam, operatorAuthor } from "@/lib/identity/route-helpers";
import { writeIdentityAsOperator } from "@/lib/identity/writes";

// GET /api/v1/agents/{id}/identity/{kind} – the current version of one file
export const GET = operatorRoute("viewer", async ({ params }) =>
  getIdentityFile({ agentId: params.id ?? "", kind: kindParam(params.kind) }),
);

// PUT /api/v1/agents/{id}/identity/{kind} – save a new version (409 stale_base unless it merges cleanly)
export const PUT = operatorRoute("operator", async ({ params, body, principal, actor }) => {
  const kind = kindParam(params.kind);
  const input = await body(putIdentityBodySchema);
  return writeIdentityAsOperator({
    agentId: params.id ?? "",
    kind,
    content: input.content,
    baseVersionId: input.baseVersionId,
    reason: input.reason,
    author: operatorAuthor(principal),
    source: principal.kind === "user" ? "editor" : "api",
    actor,
  });
});

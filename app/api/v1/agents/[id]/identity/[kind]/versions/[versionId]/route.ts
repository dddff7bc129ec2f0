import { operatorRoute } from "@/lib/api/handler";
import { getIdentityVersion } from "@/lib/identity/read";
import { kindParam } from "@/lib/identity/route-helpers";

// GET /api/v1/agents/{id}/identity/{kind}/versions/{versionId} – one version with its content
export const GET = operatorRoute("viewer", async ({ params }) =>
  getIdentityVersion({ agentId: params.id ?? "", kind: kindParam(params.kind), versionId: params.versionId ?? "" }),
);

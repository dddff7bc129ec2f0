import { operatorRoute } from "@/lib/api/handler";
import { listIdentityVersions } from "@/lib/identity/read";
import { kindParam } from "@/lib/identity/route-helpers";

// GET /api/v1/agents/{id}/identity/{kind}/versions – the file's history, newest first
export const GET = operatorRoute("viewer", async ({ params }) => ({
  versions: await listIdentityVersions({ agentId: params.id ?? "", kind: kindParam(params.kind) }),
}));

import { operatorRoute } from "@/lib/api/handler";
import { rebootstrapAgent } from "@/lib/identity/bootstrap";
import { operatorAuthor } from "@/lib/identity/route-helpers";

// POST /api/v1/agents/{id}/rebootstrap – admin: archive SOUL/IDENTITY/USER, restore BOOTSTRAP.md
export const POST = operatorRoute("admin", async ({ params, principal, actor }) =>
  rebootstrapAgent({ agentId: params.id ?? "", actor, author: operatorAuthor(principal) }),
);

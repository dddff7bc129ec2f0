import { leadRoute } from "@/lib/api/handler";
import { leadOutcomesQuerySchema } from "@/lib/contracts/lead";
import { leadOutcomes } from "@/lib/lead/swarm-view";

// GET /api/worker/swarm/outcomes?agent= – lead only: an agent's task outcomes under each SOUL.md version
export const GET = leadRoute("read identity-version outcomes", async ({ query }) =>
  leadOutcomes({ query: query(leadOutcomesQuerySchema) }),
);

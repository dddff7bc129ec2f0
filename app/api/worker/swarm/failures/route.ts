import { leadRoute } from "@/lib/api/handler";
import { leadWindowQuerySchema } from "@/lib/contracts/lead";
import { leadFailures } from "@/lib/lead/swarm-view";

// GET /api/worker/swarm/failures?since=&until=&agent= – lead only: failure reasons grouped, with the agents they come from
export const GET = leadRoute("read failure recurrence", async ({ query }) => leadFailures({ query: query(leadWindowQuerySchema) }));

import { leadRoute } from "@/lib/api/handler";
import { leadListAgents } from "@/lib/lead/swarm-view";

// GET /api/worker/swarm/agents – lead only: every agent, its status (idle, busy, offline) and open tasks
export const GET = leadRoute("list the swarm's agents", async () => leadListAgents());

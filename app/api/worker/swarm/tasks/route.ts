import { leadRoute } from "@/lib/api/handler";
import { leadTasksQuerySchema } from "@/lib/contracts/lead";
import { leadListTasks } from "@/lib/lead/swarm-view";

// GET /api/worker/swarm/tasks – lead only: the swarm's tasks, newest first; filters agent (name or id), status (comma list), tag, q, since/until (date or "24h"/"7d"); cursor paging
export const GET = leadRoute("list the swarm's tasks", async ({ query }) => leadListTasks({ query: query(leadTasksQuerySchema) }));

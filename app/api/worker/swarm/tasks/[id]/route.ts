import { leadRoute } from "@/lib/api/handler";
import { idSchema } from "@/lib/contracts/common";
import { leadGetTask } from "@/lib/lead/swarm-view";

// GET /api/worker/swarm/tasks/{id} – lead only: one task of the swarm, whole, with its events
export const GET = leadRoute("read the swarm's tasks", async ({ params }) => leadGetTask({ id: idSchema.parse(params.id) }));

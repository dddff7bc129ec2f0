import { created, operatorRoute } from "@/lib/api/handler";
import { createTaskBodySchema, listTasksQuerySchema } from "@/lib/contracts/tasks";
import { createTask, listTasks } from "@/lib/tasks/operator-tasks";

// GET /api/v1/tasks – tasks, newest first; filters status (comma list), agentId, tag, q; cursor paging
export const GET = operatorRoute("viewer", async ({ query }) => listTasks(query(listTasksQuerySchema)));

// POST /api/v1/tasks – create a task: pending for agentId, or unassigned in the pool
export const POST = operatorRoute("operator", async ({ body, actor, principal }) => {
  const input = await body(createTaskBodySchema);
  return created({ task: await createTask({ input, actor, createdById: principal.userId }) });
});

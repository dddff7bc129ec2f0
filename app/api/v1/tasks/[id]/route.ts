import { operatorRoute } from "@/lib/api/handler";
import { patchTaskBodySchema } from "@/lib/contracts/tasks";
import { getTaskWithEvents, patchTask } from "@/lib/tasks/operator-tasks";

// GET /api/v1/tasks/{id} – one task with its events
export const GET = operatorRoute("viewer", async ({ params }) => getTaskWithEvents({ id: params.id ?? "" }));

// PATCH /api/v1/tasks/{id} – {action: cancel | reassign | unassign | retry}
export const PATCH = operatorRoute("operator", async ({ params, body, actor }) => {
  const input = await body(patchTaskBodySchema);
  return { task: await patchTask({ id: params.id ?? "", input, actor }) };
});

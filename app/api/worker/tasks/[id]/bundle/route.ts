import { workerRoute } from "@/lib/api/handler";
import { getTaskBundle } from "@/lib/tasks/bundle";

// GET /api/worker/tasks/{id}/bundle – files, composed setup script, system and task prompts, memories
export const GET = workerRoute(async ({ params, principal }) => getTaskBundle({ principal, taskId: params.id ?? "" }));

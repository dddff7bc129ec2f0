import { workerRoute } from "@/lib/api/handler";
import { pollQuerySchema } from "@/lib/contracts/tasks";
import { pollForTask } from "@/lib/tasks/dispatch";
import { workerAnswer } from "@/lib/tasks/worker-response";

export const dynamic = "force-dynamic";

// GET /api/worker/poll?waitMs=N – long-poll: 200 {task} with a task this agent has atomically claimed, or 204
export const GET = workerRoute(async ({ query, principal, req }) => {
  const { waitMs } = query(pollQuerySchema);
  const task = await pollForTask({ principal, waitMs, signal: () => req.signal });
  return task ? workerAnswer({ task }) : undefined;
});

import { operatorRoute } from "@/lib/api/handler";
import { metricsQuerySchema } from "@/lib/contracts/metrics";
import { resolveRange } from "@/lib/metrics/range";
import { getTaskSeries } from "@/lib/metrics/task-metrics";

// GET /api/v1/metrics/tasks – per-day completion, failure and duration series, swarm-wide and per agent
export const GET = operatorRoute("viewer", async ({ query }) => {
  const { agentId, ...days } = query(metricsQuerySchema);
  return getTaskSeries({ range: resolveRange(days), agentId });
});

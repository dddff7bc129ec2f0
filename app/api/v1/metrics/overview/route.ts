import { operatorRoute } from "@/lib/api/handler";
import { metricsQuerySchema } from "@/lib/contracts/metrics";
import { resolveRange } from "@/lib/metrics/range";
import { getOverview } from "@/lib/metrics/task-metrics";

// GET /api/v1/metrics/overview – task counts, rates, durations and throughput over ?from=&to=&agentId=
export const GET = operatorRoute("viewer", async ({ query }) => {
  const { agentId, ...days } = query(metricsQuerySchema);
  return getOverview({ range: resolveRange(days), agentId });
});

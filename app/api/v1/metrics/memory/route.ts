import { operatorRoute } from "@/lib/api/handler";
import { metricsQuerySchema } from "@/lib/contracts/metrics";
import { getMemoryMetrics } from "@/lib/metrics/memory-metrics";
import { resolveRange } from "@/lib/metrics/range";

// GET /api/v1/metrics/memory – memory growth per agent and source, and retrieval health
export const GET = operatorRoute("viewer", async ({ query }) => {
  const { agentId, ...days } = query(metricsQuerySchema);
  return getMemoryMetrics({ range: resolveRange(days), agentId });
});

import { operatorRoute } from "@/lib/api/handler";
import { metricsQuerySchema } from "@/lib/contracts/metrics";
import { getFailureRecurrence } from "@/lib/metrics/failure-reasons";
import { resolveRange } from "@/lib/metrics/range";

// GET /api/v1/metrics/failures – failure reasons grouped (ids and numbers normalised out), counts per day
export const GET = operatorRoute("viewer", async ({ query }) => {
  const { agentId, ...days } = query(metricsQuerySchema);
  return getFailureRecurrence({ range: resolveRange(days), agentId });
});

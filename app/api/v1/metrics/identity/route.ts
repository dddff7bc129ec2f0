import { operatorRoute } from "@/lib/api/handler";
import { metricsQuerySchema } from "@/lib/contracts/metrics";
import { getIdentityTimeline } from "@/lib/metrics/identity-metrics";
import { resolveRange } from "@/lib/metrics/range";

// GET /api/v1/metrics/identity – identity versions per file per agent over the range, by source
export const GET = operatorRoute("viewer", async ({ query }) => {
  const { agentId, ...days } = query(metricsQuerySchema);
  return getIdentityTimeline({ range: resolveRange(days), agentId });
});

import { operatorRoute } from "@/lib/api/handler";
import { metricsQuerySchema } from "@/lib/contracts/metrics";
import { getProposalDecisions } from "@/lib/metrics/identity-metrics";
import { resolveRange } from "@/lib/metrics/range";

// GET /api/v1/metrics/proposals – proposals approved, approved with edits and rejected per day
export const GET = operatorRoute("viewer", async ({ query }) => {
  const { agentId, ...days } = query(metricsQuerySchema);
  return getProposalDecisions({ range: resolveRange(days), agentId });
});

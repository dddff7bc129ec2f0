import type { z } from "zod";
import { operatorRoute } from "@/lib/api/handler";
import { metricsQuerySchema } from "@/lib/contracts/metrics";
import { getWeeklyReport } from "@/lib/metrics/weekly-report";

const querySchema = metricsQuerySchema.pick({ to: true });

// GET /api/v1/metrics/weekly-report – the 7 days ending ?to= (default today) against the 7 before:
// totals, top failure reasons, the agents whose failure rate moved the most
export const GET = operatorRoute("viewer", async ({ query }) => {
  const { to } = query(querySchema) as z.infer<typeof querySchema>;
  return getWeeklyReport({ endDay: to });
});

import type { z } from "zod";
import { operatorRoute } from "@/lib/api/handler";
import { idSchema } from "@/lib/contracts/common";
import { metricsQuerySchema } from "@/lib/contracts/metrics";
import { getSoulOutcomes } from "@/lib/metrics/identity-metrics";
import { resolveRange } from "@/lib/metrics/range";

const querySchema = metricsQuerySchema.extend({ agentId: idSchema });

// GET /api/v1/metrics/soul-outcomes?agentId= – success rate and duration under each SOUL.md version (all time unless from/to)
export const GET = operatorRoute("viewer", async ({ query }) => {
  const { agentId, from, to } = query(querySchema) as z.infer<typeof querySchema>;
  const range = from || to ? resolveRange({ from, to }) : undefined;
  return getSoulOutcomes({ agentId, range });
});

import { z } from "zod";
import { listAlerts } from "@/lib/alerts/alerts";
import { operatorRoute } from "@/lib/api/handler";

const querySchema = z.object({ recent: z.enum(["0", "1", "true", "false"]).optional() });

// GET /api/v1/alerts – open failure-rate alerts (?recent=1 adds those resolved in the last 7 days)
export const GET = operatorRoute("viewer", async ({ query }) => {
  const { recent } = query(querySchema);
  return listAlerts({ includeResolved: recent === "1" || recent === "true" });
});

import { evaluateAlerts } from "@/lib/alerts/alerts";
import { operatorRoute } from "@/lib/api/handler";

// POST /api/v1/alerts/evaluate – evaluate failure-rate alerts now instead of at the next minute
export const POST = operatorRoute("operator", async () => {
  const { config, fired, resolved } = await evaluateAlerts();
  return { config, fired, resolved };
});

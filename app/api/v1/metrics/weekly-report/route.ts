import { operatorRoute } from "@/lib/api/handler";
import { getWeeklyReport } from "@/lib/metrics/weekly-report";

// GET /api/v1/metrics/weekly-report – the last 7 days against the 7 before: totals, top failure reasons, biggest movers
export const GET = operatorRoute("viewer", async () => getWeeklyReport());

import { leadRoute } from "@/lib/api/handler";
import { leadReportQuerySchema } from "@/lib/contracts/lead";
import { leadWeeklyReport } from "@/lib/lead/swarm-view";

// GET /api/worker/swarm/report?to= – lead only: the weekly report (the 7 days ending `to` against the 7 before)
export const GET = leadRoute("read the weekly report", async ({ query }) => leadWeeklyReport({ query: query(leadReportQuerySchema) }));

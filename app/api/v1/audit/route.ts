import { operatorRoute } from "@/lib/api/handler";
import { listAuditEvents } from "@/lib/audit/audit-query";
import { listAuditQuerySchema } from "@/lib/contracts/audit";

// GET /api/v1/audit – events newest first; `nextBefore` fetches the next page
export const GET = operatorRoute("viewer", async ({ query }) => listAuditEvents(query(listAuditQuerySchema)));

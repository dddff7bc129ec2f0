import { operatorRoute } from "@/lib/api/handler";
import { verifyAuditChain } from "@/lib/audit/audit-log";

// GET /api/v1/audit/verify – recompute the hash chain: {ok, checked, brokenAt}
export const GET = operatorRoute("viewer", async () => verifyAuditChain());

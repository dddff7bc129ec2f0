import { operatorRoute } from "@/lib/api/handler";
import { listProposalsQuerySchema } from "@/lib/contracts/identity";
import { listProposals } from "@/lib/identity/proposals";

// GET /api/v1/proposals?status=&agentId= – the review queue (pending oldest first) and decided proposals
export const GET = operatorRoute("viewer", async ({ query }) => listProposals(query(listProposalsQuerySchema)));

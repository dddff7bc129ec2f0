import { z } from "zod";
import { operatorRoute } from "@/lib/api/handler";
import { proposalStatusSchema } from "@/lib/contracts/identity";
import { countProposals } from "@/lib/identity/proposals";

const countQuerySchema = z.object({ status: proposalStatusSchema.default("pending") });

// GET /api/v1/proposals/count?status=pending – {total}, for the navigation badge
export const GET = operatorRoute("viewer", async ({ query }) => countProposals(query(countQuerySchema)));

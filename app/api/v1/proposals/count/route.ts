import { z } from "zod";
import { operatorRoute } from "@/lib/api/handler";
import { proposalStatusSchema } from "@/lib/contracts/identity";
import { countProposals } from "@/lib/identity/proposals";

// `open`: pending and conflict, everything that waits for a reviewer.
const countQuerySchema = z.object({ status: z.union([proposalStatusSchema, z.literal("open")]).default("pending") });

// GET /api/v1/proposals/count?status=pending|conflict|open|… – {total}; `open` for the navigation badge and the home page
export const GET = operatorRoute("viewer", async ({ query }) => countProposals(query(countQuerySchema)));

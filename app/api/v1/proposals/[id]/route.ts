import { operatorRoute } from "@/lib/api/handler";
import { getProposal } from "@/lib/identity/proposals";

// GET /api/v1/proposals/{id} – one proposal with base, current, proposed and merged text
export const GET = operatorRoute("viewer", async ({ params }) => getProposal({ id: params.id ?? "" }));

import { operatorRoute } from "@/lib/api/handler";
import { rejectProposalBodySchema } from "@/lib/contracts/identity";
import { rejectProposal } from "@/lib/identity/proposals";

// POST /api/v1/proposals/{id}/reject – refuse the proposal, with a note for the agent
export const POST = operatorRoute("operator", async ({ params, body, principal, actor }) => {
  const input = await body(rejectProposalBodySchema);
  return rejectProposal({ id: params.id ?? "", note: input.note, reviewerId: principal.userId, actor });
});

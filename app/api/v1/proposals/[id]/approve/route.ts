import { operatorRoute } from "@/lib/api/handler";
import { approveProposalBodySchema } from "@/lib/contracts/identity";
import { approveProposal } from "@/lib/identity/proposals";

// POST /api/v1/proposals/{id}/approve – apply the proposal (or the reviewer's edit of it) as a new version
export const POST = operatorRoute("operator", async ({ params, body, principal, actor }) => {
  const input = await body(approveProposalBodySchema);
  return approveProposal({ id: params.id ?? "", note: input.note, content: input.content, reviewerId: principal.userId, actor });
});

import { findAgent } from "@/lib/agents/agents";
import { operatorRoute } from "@/lib/api/handler";
import { listBuiltinChanges } from "@/lib/tools/builtin-changes";

// GET /api/v1/agents/{id}/builtin-tools – the agent's changes to built-in tools: branch, commit, test result
export const GET = operatorRoute("viewer", async ({ params }) => {
  await findAgent({ id: params.id ?? "" });
  return { changes: await listBuiltinChanges({ agentId: params.id ?? "" }) };
});

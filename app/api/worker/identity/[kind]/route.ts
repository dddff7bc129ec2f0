import { accepted, workerRoute } from "@/lib/api/handler";
import { chargeWorkerQuota } from "@/lib/api/worker-quotas";
import { workerPutIdentityBodySchema } from "@/lib/contracts/identity";
import { getIdentityFile } from "@/lib/identity/read";
import { kindParam } from "@/lib/identity/route-helpers";
import { writeIdentityAsAgent } from "@/lib/identity/writes";

// GET /api/worker/identity/{kind} – the current version of one of this agent's files (to rebase after a 409)
export const GET = workerRoute(async ({ params, principal }) =>
  getIdentityFile({ agentId: principal.agent.id, kind: kindParam(params.kind) }),
);

// PUT /api/worker/identity/{kind} – write or propose as this agent: 200 applied, 202 pending, 403, 409, 413
export const PUT = workerRoute(async ({ params, body, principal, actor }) => {
  const kind = kindParam(params.kind);
  const input = await body(workerPutIdentityBodySchema);
  await chargeWorkerQuota("proposals", principal.agent.id);
  const { httpStatus, result } = await writeIdentityAsAgent({ agent: principal.agent, kind, body: input, actor });
  return httpStatus === 202 ? accepted(result) : result;
});

// A worker runner announcing itself: the token says which agent it serves; the
// agent records the worker's host, version and harness and is seen online.
import "server-only";
import { type Actor, appendAudit } from "@/lib/audit/audit-log";
import type { WorkerPrincipal } from "@/lib/auth/principal";
import type { RegisterBody, RegisterResponse } from "@/lib/contracts/worker";
import { db } from "@/lib/db";
import { notFound } from "@/lib/errors";

/** How often an idle worker polls (it long-polls in between). */
export function pollIntervalMs(): number {
  const value = Number(process.env.SWARMDECK_POLL_INTERVAL_MS);
  return Number.isFinite(value) && value >= 100 ? value : 5_000;
}

export async function registerWorker({
  principal,
  input,
  actor,
}: {
  principal: WorkerPrincipal;
  input: RegisterBody;
  actor: Actor;
}): Promise<RegisterResponse> {
  const agent = await db.$transaction(async (tx) => {
    const found = await tx.agent.findFirst({ where: { id: principal.agent.id, archivedAt: null } });
    if (!found) throw notFound("Agent");
    const updated = await tx.agent.update({
      where: { id: found.id },
      data: { lastSeenAt: new Date(), workerVersion: input.version, workerHostname: input.hostname, harness: input.harness },
    });
    await appendAudit(tx, {
      actor,
      action: "worker.registered",
      targetType: "agent",
      targetId: found.id,
      agentId: found.id,
      data: { version: input.version, hostname: input.hostname, harness: input.harness, tokenId: principal.tokenId },
    });
    return updated;
  });
  return {
    agent: {
      id: agent.id,
      name: agent.name,
      role: agent.role === "lead" ? "lead" : "worker",
      securityProfile: agent.securityProfile as RegisterResponse["agent"]["securityProfile"],
    },
    pollIntervalMs: pollIntervalMs(),
  };
}

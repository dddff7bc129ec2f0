// The setup script as a worker runs it (reference 000): at worker start and again
// only when the composed script changes (its hash). The worker reports each run;
// the agent keeps the last status and output for its page and the Agents list,
// and a failure (a new one: not the same script failing again) is audited and
// sent to the alert webhook, because a strict worker stops claiming tasks on it.
import "server-only";
import { sendNoticeWebhook } from "@/lib/alerts/webhook";
import { type Actor, appendAudit } from "@/lib/audit/audit-log";
import type { WorkerPrincipal } from "@/lib/auth/principal";
import { getGlobalSetupScript } from "@/lib/config/swarm-config";
import type { SetupScriptResponse, SetupStatusBody } from "@/lib/contracts/worker";
import { db, usesPostgres } from "@/lib/db";
import { notFound } from "@/lib/errors";
import { getWorkspaceFiles } from "@/lib/identity/workspace-files";
import { composeSetupScript, setupScriptHash } from "@/lib/setup-script/compose";

/** Kept of a run's output (its tail: where the error is). */
const OUTPUT_CHARS = 16_000;

export async function setupScriptForWorker({ principal }: { principal: WorkerPrincipal }): Promise<SetupScriptResponse> {
  const [files, global] = await Promise.all([getWorkspaceFiles({ agentId: principal.agent.id }), getGlobalSetupScript()]);
  const agent = files.find((file) => file.kind === "SETUP_SCRIPT")?.content ?? "";
  const composed = composeSetupScript({ global, agent });
  return { global, agent, composed, hash: setupScriptHash(composed) };
}

export async function reportSetupStatus({
  principal,
  input,
  actor,
}: {
  principal: WorkerPrincipal;
  input: SetupStatusBody;
  actor: Actor;
}): Promise<{ ok: true }> {
  const output = input.output.length > OUTPUT_CHARS ? input.output.slice(-OUTPUT_CHARS) : input.output;
  const { isNewFailure, name } = await db.$transaction(async (tx) => {
    // PostgreSQL: two reports of one agent (two worker processes, two instances) take
    // turns on its row, so a new failure is noticed (and announced) once.
    if (usesPostgres()) await tx.$queryRaw`SELECT "id" FROM "Agent" WHERE "id" = ${principal.agent.id} FOR UPDATE`;
    const agent = await tx.agent.findFirst({ where: { id: principal.agent.id, archivedAt: null } });
    if (!agent) throw notFound("Agent");
    const isNewFailure = input.status === "failed" && !(agent.setupStatus === "failed" && agent.setupHash === input.hash);
    const changed = agent.setupStatus !== input.status || agent.setupHash !== input.hash;
    await tx.agent.update({
      where: { id: agent.id },
      data: { setupStatus: input.status, setupOutput: output, setupHash: input.hash, setupAt: new Date(), lastSeenAt: new Date() },
    });
    if (changed) {
      await appendAudit(tx, {
        actor,
        action: input.status === "failed" ? "agent.setup_failed" : "agent.setup_ok",
        targetType: "agent",
        targetId: agent.id,
        agentId: agent.id,
        data: { hash: input.hash, exitCode: input.exitCode, blocking: input.blocking, output: output.slice(-500) },
      });
    }
    return { isNewFailure, name: agent.name };
  });
  if (isNewFailure) {
    const lastLine = output.trim().split("\n").at(-1)?.slice(0, 300) ?? "";
    await sendNoticeWebhook({
      title: `Swarmdeck: ${name}'s setup script fails`,
      message: `The setup script of agent ${name} failed (exit ${input.exitCode ?? "signal"})${
        input.blocking ? "; its worker claims no tasks until the script changes" : ""
      }. ${lastLine}`,
      payload: {
        setup: { agentId: principal.agent.id, agentName: name, status: input.status, exitCode: input.exitCode, hash: input.hash },
      },
    });
  }
  return { ok: true };
}

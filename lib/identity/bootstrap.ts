// Bootstrap (reference 002): an agent with no SOUL runs on BOOTSTRAP.md; once SOUL
// and IDENTITY exist BOOTSTRAP is retired (a deletion version). Re-bootstrap archives
// SOUL, IDENTITY and USER as deletion versions (earlier versions keep the text) and
// restores BOOTSTRAP from the template.
import "server-only";
import { type Actor, appendAudit, SYSTEM_ACTOR } from "@/lib/audit/audit-log";
import { IDENTITY_FILE_NAMES, type IdentityKind } from "@/lib/contracts/identity";
import { db, type Tx } from "@/lib/db";
import { notFound } from "@/lib/errors";
import { BOOTSTRAP_GRANT } from "./rules";
import { renderTemplate } from "./templates";
import { type Author, appendVersion, ensureFile, isLive } from "./versions";

export const REBOOTSTRAP_ERASES: readonly IdentityKind[] = ["SOUL", "IDENTITY", "USER"];
const SYSTEM_AUTHOR: Author = { type: "system", id: null };

/** Retires BOOTSTRAP.md when SOUL and IDENTITY both exist and it is still current. Returns whether it did. */
export async function retireBootstrapIfDone(tx: Tx, agentId: string, actor: Actor = SYSTEM_ACTOR): Promise<boolean> {
  const files = await tx.identityFile.findMany({
    where: { agentId, kind: { in: ["SOUL", "IDENTITY", "BOOTSTRAP"] } },
    include: { currentVersion: true },
  });
  const byKind = new Map(files.map((file) => [file.kind, file]));
  const bootstrap = byKind.get("BOOTSTRAP");
  if (!bootstrap || !isLive(bootstrap.currentVersion)) return false;
  if (!isLive(byKind.get("SOUL")?.currentVersion) || !isLive(byKind.get("IDENTITY")?.currentVersion)) return false;
  await appendVersion(tx, {
    file: bootstrap,
    content: "",
    deleted: true,
    author: SYSTEM_AUTHOR,
    source: "bootstrap",
    reason: "SOUL.md and IDENTITY.md exist: bootstrap complete, BOOTSTRAP.md retired",
    actor,
    action: "identity.bootstrap_retired",
  });
  return true;
}

/** Bootstrap mode with no BOOTSTRAP.md: put the default template back first (reference 002). */
export async function restoreBootstrapTemplate(
  tx: Tx,
  agent: { id: string; name: string; displayName: string; role: string; description: string; maxConcurrentTasks: number },
  args: { actor: Actor; author?: Author; reason: string },
): Promise<string | null> {
  const file = await ensureFile(tx, agent.id, "BOOTSTRAP");
  const template = renderTemplate("BOOTSTRAP", agent);
  if (isLive(file.currentVersion) && file.currentVersion.content === template) return null;
  const version = await appendVersion(tx, {
    file,
    content: template,
    author: args.author ?? SYSTEM_AUTHOR,
    source: "bootstrap",
    reason: args.reason,
    actor: args.actor,
    action: "identity.bootstrap_restored",
  });
  return version.id;
}

export async function rebootstrapAgent({ agentId, actor, author }: { agentId: string; actor: Actor; author: Author }) {
  return db.$transaction(async (tx) => {
    const agent = await tx.agent.findFirst({ where: { id: agentId, archivedAt: null } });
    if (!agent) throw notFound("Agent");
    const erased: string[] = [];
    for (const kind of REBOOTSTRAP_ERASES) {
      const file = await ensureFile(tx, agentId, kind);
      if (!isLive(file.currentVersion)) continue;
      await appendVersion(tx, {
        file,
        content: "",
        deleted: true,
        author,
        source: "bootstrap",
        reason: `Re-bootstrap: archived version ${file.currentVersion.number}`,
        actor,
        action: "identity.deleted",
      });
      erased.push(IDENTITY_FILE_NAMES[kind]);
    }
    const bootstrapVersionId = await restoreBootstrapTemplate(tx, agent, {
      actor,
      author,
      reason: "Re-bootstrap: BOOTSTRAP.md restored from the template",
    });
    const bootstrapFile = await ensureFile(tx, agentId, "BOOTSTRAP");
    await appendAudit(tx, {
      actor,
      action: "identity.rebootstrapped",
      targetType: "agent",
      targetId: agentId,
      agentId,
      data: { erased, bootstrapVersionId: bootstrapFile.currentVersionId },
    });
    return { erased, bootstrapVersionId: bootstrapVersionId ?? bootstrapFile.currentVersionId };
  });
}

/**
 * The ritual's writes are an explicit request (the operator chose "let it bootstrap
 * itself"): the task that runs it is granted SOUL, IDENTITY and USER, on its
 * timeline and in the audit like an operator's grant. Returns the task's grant.
 */
export async function grantBootstrapRitual({ taskId, agentId }: { taskId: string; agentId: string }): Promise<string[]> {
  return db.$transaction(async (tx) => {
    const task = await tx.task.findFirst({ where: { id: taskId, agentId }, select: { identityGrant: true } });
    if (!task) throw notFound("Task");
    const from = JSON.parse(task.identityGrant) as string[];
    const to = [...new Set([...from, ...BOOTSTRAP_GRANT])];
    if (to.length === from.length) return from;
    await tx.task.update({ where: { id: taskId }, data: { identityGrant: JSON.stringify(to) } });
    await tx.taskEvent.create({
      data: {
        taskId,
        type: "grant",
        message: `Bootstrap ritual: identity rights granted for ${BOOTSTRAP_GRANT.join(", ")}`,
        data: JSON.stringify({ from, to, by: "bootstrap" }),
        actorType: "system",
      },
    });
    await appendAudit(tx, {
      actor: SYSTEM_ACTOR,
      action: "task.identity_granted",
      targetType: "task",
      targetId: taskId,
      agentId,
      data: { from, to, by: "bootstrap" },
    });
    return to;
  });
}

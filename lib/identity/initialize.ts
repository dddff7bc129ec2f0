// Gives a new agent its identity files: each template under lib/identity/templates
// becomes version 1 (source "template"), recorded by one audit event.
import "server-only";
import { type Actor, appendAudit } from "@/lib/audit/audit-log";
import { IDENTITY_KINDS } from "@/lib/contracts/identity";
import type { Tx } from "@/lib/db";
import type { Agent } from "@/lib/generated/prisma/client";
import { renderTemplate } from "./templates";
import { appendVersion, ensureFile } from "./versions";

export async function initializeAgentIdentity({ tx, agent, actor }: { tx: Tx; agent: Agent; actor: Actor }): Promise<void> {
  const versions: Record<string, string> = {};
  for (const kind of IDENTITY_KINDS) {
    const file = await ensureFile(tx, agent.id, kind);
    const version = await appendVersion(tx, {
      file,
      content: renderTemplate(kind, agent),
      author: { type: "system", id: null },
      source: "template",
      reason: "Default template for a new agent",
      actor,
      audit: false,
    });
    versions[kind] = version.id;
  }
  await appendAudit(tx, {
    actor,
    action: "identity.initialized",
    targetType: "agent",
    targetId: agent.id,
    agentId: agent.id,
    data: { versions },
  });
}

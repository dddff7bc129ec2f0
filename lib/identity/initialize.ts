// Gives a new agent its identity files: each template under lib/identity/templates
// becomes version 1 (source "template"), recorded by one audit event. An agent that
// starts from templates gets no BOOTSTRAP.md (no ritual); one that bootstraps itself
// gets no SOUL, IDENTITY or USER: its first task runs the ritual (bootstrap.ts).
import "server-only";
import { type Actor, appendAudit } from "@/lib/audit/audit-log";
import { IDENTITY_KINDS, type IdentityKind } from "@/lib/contracts/identity";
import type { Tx } from "@/lib/db";
import type { Agent } from "@/lib/generated/prisma/client";
import { REBOOTSTRAP_ERASES } from "./bootstrap";
import { renderTemplate } from "./templates";
import { appendVersion, ensureFile } from "./versions";

export async function initializeAgentIdentity({
  tx,
  agent,
  actor,
  start = "templates",
}: {
  tx: Tx;
  agent: Agent;
  actor: Actor;
  start?: "templates" | "bootstrap";
}): Promise<void> {
  const versions: Record<string, string> = {};
  const skip: readonly IdentityKind[] = start === "bootstrap" ? REBOOTSTRAP_ERASES : ["BOOTSTRAP"];
  for (const kind of IDENTITY_KINDS) {
    if (skip.includes(kind)) continue;
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
    data: { versions, start },
  });
}

// System prompt assembly (docs/architecture.md "Identity rules") from the agent's current
// identity versions. `buildSystemPrompt` is what a task runs with and does the
// bootstrap bookkeeping (retire BOOTSTRAP.md, or restore it when SOUL is gone);
// `previewSystemPrompt` shows the same text without changing anything.
import "server-only";
import { SYSTEM_ACTOR } from "@/lib/audit/audit-log";
import type { PromptPreviewDto } from "@/lib/contracts/identity";
import { db, type Tx } from "@/lib/db";
import { notFound } from "@/lib/errors";
import { restoreBootstrapTemplate, retireBootstrapIfDone } from "./bootstrap";
import { assemblePrompt, type PromptSources, promptFileCapChars } from "./prompt-assembly";
import { renderTemplate } from "./templates";
import { isLive } from "./versions";

export type AssembledPrompt = {
  systemPrompt: string;
  /** True when the agent has no SOUL and BOOTSTRAP.md is its system prompt. */
  bootstrap: boolean;
  /** The SOUL.md version the prompt was built from (outcome per identity version). */
  soulVersionId: string | null;
};

const PROMPT_KINDS = ["AGENT", "SOUL", "IDENTITY", "USER", "CAPABILITIES", "BOOTSTRAP"] as const;

async function loadSources(tx: Tx | typeof db, agentId: string) {
  const files = await tx.identityFile.findMany({ where: { agentId, kind: { in: [...PROMPT_KINDS] } }, include: { currentVersion: true } });
  const sources: PromptSources = { AGENT: null, SOUL: null, IDENTITY: null, USER: null, CAPABILITIES: null, BOOTSTRAP: null };
  let soulVersionId: string | null = null;
  for (const file of files) {
    if (!isLive(file.currentVersion)) continue;
    sources[file.kind as keyof PromptSources] = file.currentVersion.content;
    if (file.kind === "SOUL") soulVersionId = file.currentVersion.id;
  }
  return { sources, soulVersionId };
}

export async function buildSystemPrompt({ agentId }: { agentId: string }): Promise<AssembledPrompt & { truncated: string[] }> {
  return db.$transaction(async (tx) => {
    const agent = await tx.agent.findUnique({ where: { id: agentId } });
    if (!agent) throw notFound("Agent");
    await retireBootstrapIfDone(tx, agentId, SYSTEM_ACTOR);
    let { sources, soulVersionId } = await loadSources(tx, agentId);
    if (sources.SOUL === null && sources.BOOTSTRAP === null) {
      await restoreBootstrapTemplate(tx, agent, {
        actor: SYSTEM_ACTOR,
        reason: "No SOUL.md and no BOOTSTRAP.md: bootstrap template restored",
      });
      ({ sources, soulVersionId } = await loadSources(tx, agentId));
    }
    const result = assemblePrompt({ files: sources, cap: promptFileCapChars() });
    return { systemPrompt: result.systemPrompt, bootstrap: result.bootstrap, soulVersionId, truncated: result.truncated };
  });
}

export async function previewSystemPrompt({ agentId }: { agentId: string }): Promise<PromptPreviewDto> {
  const agent = await db.agent.findFirst({ where: { id: agentId, archivedAt: null } });
  if (!agent) throw notFound("Agent");
  const { sources, soulVersionId } = await loadSources(db, agentId);
  const notes: string[] = [];
  if (sources.SOUL !== null && sources.IDENTITY !== null && sources.BOOTSTRAP !== null) {
    notes.push("SOUL.md and IDENTITY.md exist: BOOTSTRAP.md will be retired when the next task starts.");
    sources.BOOTSTRAP = null;
  }
  if (sources.SOUL === null || (sources.BOOTSTRAP !== null && sources.IDENTITY === null)) {
    notes.push(
      "Bootstrap mode: the next task runs the BOOTSTRAP.md ritual under AGENT.md's rules, with the right to write SOUL.md, IDENTITY.md and USER.md; it ends once SOUL.md and IDENTITY.md both exist.",
    );
    if (sources.BOOTSTRAP === null) {
      notes.push("BOOTSTRAP.md is missing: the default template will be restored when the next task starts.");
      sources.BOOTSTRAP = renderTemplate("BOOTSTRAP", agent);
    }
  }
  const capChars = promptFileCapChars();
  const result = assemblePrompt({ files: sources, cap: capChars });
  if (result.truncated.length) notes.push(`Cut at the per-file cap of ${capChars} characters: ${result.truncated.join(", ")}.`);
  return { systemPrompt: result.systemPrompt, bootstrap: result.bootstrap, soulVersionId, truncated: result.truncated, notes, capChars };
}

// Lead-to-worker feedback (reference 001, P6): a lead agent (or an operator)
// pushes a learning into one worker's memory, and optionally a line under
// "## Feedback from Lead" in its CLAUDE.md as a new identity version: both in
// one transaction, both audited.
import "server-only";
import { type Actor, appendAudit } from "@/lib/audit/audit-log";
import type { LEARNING_CATEGORIES } from "@/lib/contracts/memory";
import { db } from "@/lib/db";
import { ApiError } from "@/lib/errors";
import { appendVersion, ensureFile, liveContent } from "@/lib/identity/versions";
import { withFeedbackLine } from "./claude-feedback";
import { afterStore, contentHash } from "./memory-store";
import { providerConfig } from "./provider";

export type LearningInput = {
  targetAgentId: string;
  category: (typeof LEARNING_CATEGORIES)[number];
  learning: string;
  addToClaudeMd: boolean;
};

export async function injectLearning(args: {
  input: LearningInput;
  actor: Actor;
  /** The lead agent that gives the feedback (null: an operator). */
  fromAgent: { id: string; name: string } | null;
}): Promise<{ memoryIds: number[]; claudeVersionId: string | null }> {
  const { input } = args;
  const from = args.fromAgent ? `lead ${args.fromAgent.name}` : `operator ${args.actor.label}`;
  const content = `[Feedback from ${from}] Category: ${input.category}\n\n${input.learning}`;
  const result = await db.$transaction(async (tx) => {
    const target = await tx.agent.findUnique({ where: { id: input.targetAgentId }, select: { id: true, archivedAt: true } });
    if (!target || target.archivedAt) throw new ApiError("not_found", "The target agent was not found");
    const memory = await tx.memory.create({
      data: {
        scope: "agent",
        agentId: target.id,
        name: `Lead feedback (${input.category})`,
        content,
        source: "lead_feedback",
        contentHash: contentHash(content),
        embeddingStatus: providerConfig() ? "pending" : "none",
        createdById: args.actor.id,
      },
      select: { id: true },
    });
    await appendAudit(tx, {
      actor: args.actor,
      action: "memory.created",
      targetType: "memory",
      targetId: String(memory.id),
      agentId: target.id,
      data: { count: 1, ids: [memory.id], source: "lead_feedback", scope: "agent", category: input.category },
    });
    let claudeVersionId: string | null = null;
    if (input.addToClaudeMd) {
      const file = await ensureFile(tx, target.id, "CLAUDE");
      const firstLine = input.learning.split("\n").find((line) => line.trim()) ?? input.learning;
      const version = await appendVersion(tx, {
        file,
        content: withFeedbackLine(liveContent(file), `(${input.category}) ${firstLine.trim().slice(0, 500)}`),
        author: args.fromAgent ? { type: "lead", id: args.fromAgent.id } : { type: "operator", id: args.actor.id },
        source: args.fromAgent ? "agent_write" : "api",
        reason: `Feedback from ${from} (${input.category})`,
        actor: args.actor,
      });
      claudeVersionId = version.id;
    }
    return { memoryId: memory.id, claudeVersionId };
  });
  afterStore({ replaced: [] });
  return { memoryIds: [result.memoryId], claudeVersionId: result.claudeVersionId };
}

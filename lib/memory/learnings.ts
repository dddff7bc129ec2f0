// Lead-to-worker feedback (reference 001, P6): a lead agent (or an operator)
// pushes a learning into one agent's memory, or into the swarm's, and for one
// agent optionally a line under "## Feedback from Lead" in its CLAUDE.md. The
// next task prompt of the agent carries it (lib/memory/lead-feedback.ts).
//
// The CLAUDE.md line follows the target's identity rules when a lead writes it
// (lib/identity/rules.ts, the target's security profile): applied, queued as a
// proposal for an operator, or refused; the learning itself is stored either
// way. An operator's line is an operator write. All of it in one transaction,
// audited.
import "server-only";
import { type Actor, appendAudit } from "@/lib/audit/audit-log";
import type { ClaudeNote, LearningResponse } from "@/lib/contracts/lead";
import type { LEARNING_CATEGORIES } from "@/lib/contracts/memory";
import { db, type Tx } from "@/lib/db";
import { ApiError } from "@/lib/errors";
import { createProposal } from "@/lib/identity/proposals";
import { decideWrite } from "@/lib/identity/rules";
import { type Author, appendVersion, ensureFile, liveContent, lockAgentIdentity } from "@/lib/identity/versions";
import { withFeedbackLine } from "./claude-feedback";
import { activeEmbedder } from "./embedders";
import { afterStore, contentHash } from "./memory-store";
import { dropFromIndexes } from "./search-index";

export type LearningInput = {
  /** One agent's id, or null: a learning for the whole swarm. */
  targetAgentId: string | null;
  category: (typeof LEARNING_CATEGORIES)[number];
  learning: string;
  addToClaudeMd: boolean;
};

type Target = { id: string; securityProfile: string };
type From = { actor: Actor; fromAgent: { id: string; name: string } | null; label: string };

const NOT_REQUESTED: ClaudeNote = { status: "not_requested", versionId: null, proposalId: null, message: null };

async function addClaudeNote(tx: Tx, target: Target, input: LearningInput, from: From): Promise<ClaudeNote> {
  const file = await ensureFile(tx, target.id, "CLAUDE");
  const firstLine = input.learning.split("\n").find((line) => line.trim()) ?? input.learning;
  const content = withFeedbackLine(liveContent(file), `(${input.category}) ${firstLine.trim().slice(0, 500)}`);
  const reason = `Feedback from ${from.label} (${input.category})`;
  const apply = async (author: Author, source: "api" | "agent_write"): Promise<ClaudeNote> => {
    const version = await appendVersion(tx, { file, content, author, source, reason, actor: from.actor });
    return { status: "applied", versionId: version.id, proposalId: null, message: null };
  };
  if (!from.fromAgent) return apply({ type: "operator", id: from.actor.id }, "api");
  const profile = target.securityProfile as "paranoid" | "standard" | "power";
  const decision = decideWrite({ kind: "CLAUDE", writer: "lead", profile, granted: false, mode: "write" });
  if (decision.outcome === "deny") {
    await appendAudit(tx, {
      actor: from.actor,
      action: "identity.write_refused",
      targetType: "identity_file",
      targetId: file.id,
      agentId: target.id,
      data: { kind: "CLAUDE", file: "CLAUDE.md", code: decision.code, profile, reason },
    });
    return { status: "refused", versionId: null, proposalId: null, message: decision.message };
  }
  if (decision.outcome === "propose") {
    const proposed = await createProposal(tx, {
      file,
      agentId: target.id,
      baseVersionId: file.currentVersionId,
      content,
      reason,
      trigger: "agent",
      taskId: null,
      actor: from.actor,
    });
    if (proposed.kind === "unchanged") {
      return { status: "applied", versionId: proposed.versionId, proposalId: null, message: "CLAUDE.md already has this note" };
    }
    return {
      status: "pending",
      versionId: null,
      proposalId: proposed.proposal.id,
      message: "Waits for an operator's review (the agent's profile)",
    };
  }
  return apply({ type: "lead", id: from.fromAgent.id }, "agent_write");
}

export async function injectLearning(args: {
  input: LearningInput;
  actor: Actor;
  /** The lead agent that gives the feedback (null: an operator). */
  fromAgent: { id: string; name: string } | null;
}): Promise<LearningResponse> {
  const { input } = args;
  const label = args.fromAgent ? `lead ${args.fromAgent.name}` : `operator ${args.actor.label}`;
  const from: From = { actor: args.actor, fromAgent: args.fromAgent, label };
  const content = `[Feedback from ${label}] Category: ${input.category}\n\n${input.learning}`;
  const scope = input.targetAgentId ? "agent" : "swarm";
  const result = await db.$transaction(async (tx) => {
    const target = input.targetAgentId
      ? await tx.agent.findUnique({ where: { id: input.targetAgentId }, select: { id: true, archivedAt: true, securityProfile: true } })
      : null;
    if (input.targetAgentId && (!target || target.archivedAt)) throw new ApiError("not_found", "The target agent was not found");
    // PostgreSQL: the agent's identity lock before this transaction's audit append, as
    // every identity write takes them (lib/identity/versions.ts), so the two never wait crosswise.
    if (target) await lockAgentIdentity(tx, target.id);
    // The same learning given again (a daily digest repeating a correction) replaces the
    // earlier one: one copy in the prompt's few lead-feedback slots, dated by the last time.
    const hash = contentHash(content);
    const earlier = await tx.memory.findMany({
      where: { source: "lead_feedback", scope, agentId: target?.id ?? null, contentHash: hash, archivedAt: null, supersededById: null },
      select: { id: true },
    });
    const memory = await tx.memory.create({
      data: {
        scope,
        agentId: target?.id ?? null,
        name: `Lead feedback (${input.category})`,
        content,
        source: "lead_feedback",
        contentHash: hash,
        embeddingStatus: activeEmbedder() ? "pending" : "none",
        createdById: args.actor.id,
      },
      select: { id: true },
    });
    const replaced = earlier.map((row) => row.id);
    if (replaced.length > 0) {
      await tx.memory.updateMany({ where: { id: { in: replaced } }, data: { archivedAt: new Date(), supersededById: memory.id } });
    }
    await appendAudit(tx, {
      actor: args.actor,
      action: "memory.created",
      targetType: "memory",
      targetId: String(memory.id),
      agentId: target?.id ?? null,
      data: { count: 1, ids: [memory.id], source: "lead_feedback", scope, category: input.category, from: label, replaced },
    });
    const claudeMd = target && input.addToClaudeMd ? await addClaudeNote(tx, target, input, from) : NOT_REQUESTED;
    return { memoryId: memory.id, claudeMd, replaced };
  });
  dropFromIndexes(result.replaced, "archived");
  afterStore({ replaced: [], pending: activeEmbedder() !== null });
  return {
    memoryIds: [result.memoryId],
    targetAgentId: input.targetAgentId,
    scope,
    claudeVersionId: result.claudeMd.status === "applied" ? result.claudeMd.versionId : null,
    claudeMd: result.claudeMd,
  };
}

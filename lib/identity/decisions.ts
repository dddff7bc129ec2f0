// The answer reaches the agent (reference 002: "If rejected, host responds with
// rejection reason"): decisions on an agent's proposals, for its next task bundle
// (those since its previous task) and for `swarm identity proposals` (the latest).
import "server-only";
import { type AgentDecision, IDENTITY_FILE_NAMES, type IdentityKind, type ProposalDto } from "@/lib/contracts/identity";
import { db, usesPostgres } from "@/lib/db";

/** What a decision is: the agent's own proposals that an operator (or its profile) settled. */
const DECIDED = ["approved", "rejected", "refused"];
const MAX_TEXT_CHARS = 4_000;

type Row = {
  id: string;
  kind: string;
  status: string;
  edited: boolean;
  reason: string;
  reviewNote: string | null;
  proposedContent: string;
  resultVersionId: string | null;
  resultVersion: { content: string } | null;
  taskId: string | null;
  createdAt: Date;
  decidedAt: Date | null;
};

const select = {
  id: true,
  kind: true,
  status: true,
  edited: true,
  reason: true,
  reviewNote: true,
  proposedContent: true,
  resultVersionId: true,
  resultVersion: { select: { content: true } },
  taskId: true,
  createdAt: true,
  decidedAt: true,
} as const;

function toDecision(row: Row): AgentDecision {
  return {
    proposalId: row.id,
    kind: row.kind as IdentityKind,
    path: IDENTITY_FILE_NAMES[row.kind as IdentityKind],
    status: row.status as ProposalDto["status"],
    edited: row.edited,
    reason: row.reason,
    note: row.reviewNote,
    proposedContent: row.proposedContent,
    appliedContent: row.status === "approved" ? (row.resultVersion?.content ?? null) : null,
    resultVersionId: row.resultVersionId,
    taskId: row.taskId,
    createdAt: row.createdAt.toISOString(),
    decidedAt: row.decidedAt?.toISOString() ?? null,
  };
}

/** The agent's latest proposals, open ones included, newest first. */
export async function listAgentProposals({ agentId, limit = 50 }: { agentId: string; limit?: number }): Promise<AgentDecision[]> {
  const rows = await db.identityProposal.findMany({
    where: { agentId },
    select,
    orderBy: usesPostgres() ? [{ createdAt: "desc" }, { id: "desc" }] : { createdAt: "desc" },
    take: limit,
  });
  return rows.map(toDecision);
}

/**
 * Decisions made since the agent's previous task was claimed (all of them, up to
 * `limit`, before its first task), oldest first, as its next bundle carries them.
 */
export async function decisionsSincePreviousTask({
  agentId,
  taskId,
  limit = 20,
}: {
  agentId: string;
  taskId: string;
  limit?: number;
}): Promise<AgentDecision[]> {
  const current = await db.task.findUnique({ where: { id: taskId }, select: { claimedAt: true } });
  const previous = await db.task.findFirst({
    where: { agentId, id: { not: taskId }, claimedAt: { not: null, lt: current?.claimedAt ?? new Date() } },
    orderBy: { claimedAt: "desc" },
    select: { claimedAt: true },
  });
  const rows = await db.identityProposal.findMany({
    where: { agentId, status: { in: DECIDED }, ...(previous?.claimedAt ? { decidedAt: { gt: previous.claimedAt } } : {}) },
    select,
    // PostgreSQL: NULLs last as SQLite sorts them descending, ids break ties.
    orderBy: usesPostgres() ? [{ decidedAt: { sort: "desc", nulls: "last" } }, { id: "desc" }] : { decidedAt: "desc" },
    take: limit,
  });
  return rows.reverse().map(toDecision);
}

function clip(text: string): string {
  return text.length > MAX_TEXT_CHARS ? `${text.slice(0, MAX_TEXT_CHARS)}\n[... cut at ${MAX_TEXT_CHARS} characters]` : text;
}

function fenced(text: string): string {
  const fence = text.includes("```") ? "~~~~" : "```";
  return `${fence}\n${clip(text).trimEnd()}\n${fence}`;
}

const HEADLINE: Record<string, (d: AgentDecision) => string> = {
  approved: (d) => (d.edited ? "approved with the reviewer's edits; the text applied was:" : "approved and applied as you proposed it."),
  rejected: () => "rejected; nothing changed.",
  refused: () => "refused by your security profile; nothing changed. Your text is kept (see `swarm identity proposals`).",
};

/** The task prompt's section on decisions (empty when there are none). */
export function decisionsPromptSection(decisions: AgentDecision[]): string {
  if (decisions.length === 0) return "";
  const items = decisions.map((d) => {
    const lines = [`### ${d.path}: ${(HEADLINE[d.status] ?? (() => d.status))(d)}`, `Your reason: ${d.reason}`];
    if (d.note) lines.push(`${d.status === "refused" ? "Why" : "Reviewer's note"}: ${d.note}`);
    if (d.status === "approved" && d.edited && d.appliedContent !== null) lines.push(fenced(d.appliedContent));
    return lines.join("\n");
  });
  return [
    "## Decisions on your proposals since your last task",
    "Operators decided on changes you proposed to yourself. Take their notes into account; do not propose a rejected change again unchanged.",
    ...items,
  ].join("\n\n");
}

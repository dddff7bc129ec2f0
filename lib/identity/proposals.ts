// Identity proposals: agent changes queued for an operator (standard profile, or
// `mode: "propose"`). A newer proposal for the same file from the same agent
// supersedes the open one; a stale base that does not merge is a `conflict`; a change
// that leaves the file as it is, or repeats the open proposal, queues nothing new.
import "server-only";
import { type Actor, appendAudit } from "@/lib/audit/audit-log";
import {
  IDENTITY_FILE_NAMES,
  IDENTITY_LANGUAGES,
  type IdentityKind,
  type ProposalDetailDto,
  type ProposalDto,
  type Trigger,
} from "@/lib/contracts/identity";
import { db, type Tx, usesPostgres } from "@/lib/db";
import { ApiError, notFound } from "@/lib/errors";
import type { IdentityProposal, IdentityVersion } from "@/lib/generated/prisma/client";
import { retireBootstrapIfDone } from "./bootstrap";
import { mergeThreeWay } from "./merge";
import {
  type Author,
  appendVersion,
  assertIdentitySize,
  checkBase,
  type FileWithCurrent,
  isLive,
  liveContent,
  lockAgentIdentity,
} from "./versions";

const OPEN = ["pending", "conflict"];

/** What an agent asked to change in one identity file. */
interface ProposedChange {
  file: FileWithCurrent;
  agentId: string;
  baseVersionId: string | null;
  content: string;
  reason: string;
  taskId: string | null;
}

/**
 * What createProposal did: queued a new proposal; found the same change already open
 * (`repeated`: nothing new for a reviewer); or found nothing to review, the change
 * leaving the file as it is (`unchanged`, with the live version).
 */
export type ProposalOutcome = { kind: "queued" | "repeated"; proposal: IdentityProposal } | { kind: "unchanged"; versionId: string };

export async function createProposal(tx: Tx, args: ProposedChange & { trigger: Trigger; actor: Actor }): Promise<ProposalOutcome> {
  const { file } = args;
  // A proposal over the limit could never be approved (appendVersion refuses it): refused here, whoever proposes.
  assertIdentitySize(args.content);
  const check = await checkBase(tx, file, args.baseVersionId, args.content);
  // Approving it would write nothing: an operator is not asked to review a change that is not one.
  if (check.ok && isLive(file.currentVersion) && file.currentVersion.content === check.content) {
    return { kind: "unchanged", versionId: file.currentVersion.id };
  }
  const open = await tx.identityProposal.findMany({
    where: { agentId: args.agentId, fileId: file.id, status: { in: OPEN } },
    select: { id: true, baseVersionId: true, proposedContent: true },
  });
  // The same text from the same base is already waiting (an agent sending it again, a
  // retried sync): the open proposal stands, with its place in the queue and any review begun.
  const same = open.find((row) => row.baseVersionId === args.baseVersionId && row.proposedContent === args.content);
  if (same) {
    const proposal = await tx.identityProposal.findUniqueOrThrow({ where: { id: same.id } });
    return { kind: "repeated", proposal };
  }
  const proposal = await tx.identityProposal.create({
    data: {
      agentId: args.agentId,
      fileId: file.id,
      kind: file.kind,
      baseVersionId: args.baseVersionId,
      proposedContent: args.content,
      mergedContent: check.ok ? (check.merged ? check.content : null) : check.mergedContent,
      reason: args.reason,
      trigger: args.trigger,
      status: check.ok ? "pending" : "conflict",
      taskId: args.taskId,
    },
  });
  if (open.length > 0) {
    await tx.identityProposal.updateMany({
      where: { id: { in: open.map((row) => row.id) } },
      data: { status: "superseded", supersededById: proposal.id, decidedAt: new Date() },
    });
  }
  await appendAudit(tx, {
    actor: args.actor,
    action: "identity.proposed",
    targetType: "identity_proposal",
    targetId: proposal.id,
    agentId: args.agentId,
    data: {
      kind: file.kind,
      file: IDENTITY_FILE_NAMES[file.kind as IdentityKind],
      status: proposal.status,
      baseVersionId: args.baseVersionId,
      trigger: args.trigger,
      reason: args.reason,
      superseded: open.map((row) => row.id),
    },
  });
  return { kind: "queued", proposal };
}

/** A change the agent's profile refused: kept, decided at once, so the agent and the operators can read what it wanted. */
export async function recordRefusedProposal(tx: Tx, args: ProposedChange & { note: string }): Promise<IdentityProposal> {
  return tx.identityProposal.create({
    data: {
      agentId: args.agentId,
      fileId: args.file.id,
      kind: args.file.kind,
      baseVersionId: args.baseVersionId,
      proposedContent: args.content,
      reason: args.reason,
      trigger: "agent",
      status: "refused",
      reviewNote: args.note,
      decidedAt: new Date(),
      taskId: args.taskId,
    },
  });
}

type ProposalRow = IdentityProposal & {
  agent: { name: string; role: string };
  baseVersion: IdentityVersion | null;
  file: FileWithCurrent;
};

const include = { agent: { select: { name: true, role: true } }, baseVersion: true, file: { include: { currentVersion: true } } } as const;

async function reviewerLabels(ids: string[]): Promise<Map<string, string>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const users = await db.user.findMany({ where: { id: { in: unique } }, select: { id: true, email: true } });
  return new Map(users.map((user) => [user.id, user.email]));
}

function toDto(row: ProposalRow, labels: Map<string, string>): ProposalDto {
  const kind = row.kind as IdentityKind;
  const current = row.file.currentVersion;
  return {
    id: row.id,
    agentId: row.agentId,
    agentName: row.agent.name,
    kind,
    path: IDENTITY_FILE_NAMES[kind],
    language: IDENTITY_LANGUAGES[kind],
    baseVersionId: row.baseVersionId,
    baseVersionNumber: row.baseVersion?.number ?? null,
    currentVersionId: current?.id ?? null,
    currentVersionNumber: current?.number ?? null,
    baseMoved: (row.baseVersionId ?? null) !== (current?.id ?? null) && !(row.baseVersionId === null && !isLive(current)),
    reason: row.reason,
    trigger: row.trigger as Trigger,
    status: row.status as ProposalDto["status"],
    edited: row.edited,
    reviewerId: row.reviewerId,
    reviewerLabel: row.reviewerId ? (labels.get(row.reviewerId) ?? row.reviewerId) : null,
    reviewNote: row.reviewNote,
    decidedAt: row.decidedAt?.toISOString() ?? null,
    resultVersionId: row.resultVersionId,
    supersededById: row.supersededById,
    taskId: row.taskId,
    createdAt: row.createdAt.toISOString(),
  };
}

/** By creation; on PostgreSQL ids break ties in the order SQLite returns them (insertion order). */
const reviewOrder = (direction: "asc" | "desc") =>
  usesPostgres() ? [{ createdAt: direction }, { id: direction }] : { createdAt: direction };

export async function listProposals({ status, agentId, limit }: { status?: string; agentId?: string; limit: number }) {
  const where = { ...(status ? { status } : {}), ...(agentId ? { agentId } : {}) };
  const [rows, total] = await Promise.all([
    // Oldest pending first is the review order; decided ones newest first.
    db.identityProposal.findMany({
      where,
      include,
      orderBy: reviewOrder(status === "pending" || status === "conflict" ? "asc" : "desc"),
      take: limit,
    }),
    db.identityProposal.count({ where }),
  ]);
  const labels = await reviewerLabels(rows.flatMap((row) => (row.reviewerId ? [row.reviewerId] : [])));
  return { proposals: rows.map((row) => toDto(row, labels)), total };
}

export async function countProposals({ status }: { status: string }) {
  return { total: await db.identityProposal.count({ where: { status: status === "open" ? { in: OPEN } : status } }) };
}

export async function getProposal({ id }: { id: string }): Promise<ProposalDetailDto> {
  const row = await db.identityProposal.findUnique({ where: { id }, include });
  if (!row) throw notFound("Proposal");
  const labels = await reviewerLabels(row.reviewerId ? [row.reviewerId] : []);
  const dto = toDto(row, labels);
  const baseContent = row.baseVersion && !row.baseVersion.deleted ? row.baseVersion.content : "";
  const currentContent = liveContent(row.file);
  let mergedContent: string | null = row.mergedContent;
  let mergeClean: boolean | null = null;
  if (OPEN.includes(row.status) && dto.baseMoved) {
    // Recompute against today's version: the file may have moved again since.
    const merge = mergeThreeWay({ base: baseContent, ours: currentContent, theirs: row.proposedContent });
    mergedContent = merge.content;
    mergeClean = merge.clean;
  }
  return { ...dto, baseContent, currentContent, proposedContent: row.proposedContent, mergedContent, mergeClean };
}

/**
 * On PostgreSQL, takes the proposal's agent's identity lock (lockAgentIdentity in
 * versions.ts, which every identity write takes first) and then the proposal's row,
 * so one decision at a time sees the proposal open and the file's current version.
 * SQLite runs one write transaction at a time already.
 */
async function lockProposal(tx: Tx, id: string): Promise<void> {
  if (!usesPostgres()) return;
  const proposal = await tx.identityProposal.findUnique({ where: { id }, select: { agentId: true } });
  if (!proposal) return;
  await lockAgentIdentity(tx, proposal.agentId);
  await tx.$queryRaw`SELECT "id" FROM "IdentityProposal" WHERE "id" = ${id} FOR UPDATE`;
}

/** The proposal, still open; `approving`: its agent not archived (a rejection may still close an archived agent's proposal). */
async function openProposal(tx: Tx, id: string, { approving }: { approving: boolean }): Promise<ProposalRow> {
  await lockProposal(tx, id);
  const row = await tx.identityProposal.findUnique({ where: { id }, include });
  if (!row) throw notFound("Proposal");
  if (!OPEN.includes(row.status)) throw new ApiError("conflict", `This proposal was already ${row.status}`, { status: row.status });
  if (approving) {
    const agent = await tx.agent.findFirst({ where: { id: row.agentId, archivedAt: null }, select: { id: true } });
    if (!agent) throw new ApiError("conflict", "The agent of this proposal was archived");
  }
  return row;
}

export async function approveProposal({
  id,
  note,
  content,
  reviewerId,
  actor,
}: {
  id: string;
  note?: string;
  content?: string;
  reviewerId: string;
  actor: Actor;
}) {
  if (content !== undefined) {
    assertIdentitySize(content);
    if (/^(<<<<<<<|>>>>>>>) /m.test(content))
      throw new ApiError("bad_request", "The text still has conflict markers (<<<<<<< / >>>>>>>); resolve them first");
  }
  const outcome = await db.$transaction(async (tx) => {
    const row = await openProposal(tx, id, { approving: true });
    const file = row.file;
    let text: string;
    let merged = false;
    if (content !== undefined) {
      text = content;
    } else {
      const check = await checkBase(tx, file, row.baseVersionId, row.proposedContent);
      if (!check.ok) return { conflict: check.mergedContent };
      text = check.content;
      merged = check.merged;
    }
    const author: Author = { type: row.agent.role === "lead" ? "lead" : "agent", id: row.agentId };
    const version = await appendVersion(tx, {
      file,
      content: text,
      author,
      source: "approved_proposal",
      reason: row.reason,
      taskId: row.taskId,
      actor,
      auditData: { proposalId: row.id, edited: content !== undefined && content !== row.proposedContent, merged },
    });
    const edited = content !== undefined && content !== row.proposedContent;
    await tx.identityProposal.update({
      where: { id },
      data: { status: "approved", edited, reviewerId, reviewNote: note || null, decidedAt: new Date(), resultVersionId: version.id },
    });
    await appendAudit(tx, {
      actor,
      action: "identity.proposal_approved",
      targetType: "identity_proposal",
      targetId: id,
      agentId: row.agentId,
      data: { kind: row.kind, versionId: version.id, number: version.number, edited, merged, note: note || null },
    });
    if (row.kind === "SOUL" || row.kind === "IDENTITY") await retireBootstrapIfDone(tx, row.agentId, actor);
    return { versionId: version.id, number: version.number, edited, merged };
  });
  if ("conflict" in outcome) {
    await db.$transaction(async (tx) => {
      await lockProposal(tx, id);
      // Only while still open: another reviewer may have decided it meanwhile.
      const open = await tx.identityProposal.updateMany({
        where: { id, status: { in: OPEN } },
        data: { status: "conflict", mergedContent: outcome.conflict },
      });
      if (open.count === 0) return;
      const row = await tx.identityProposal.findUniqueOrThrow({ where: { id }, select: { agentId: true, kind: true } });
      await appendAudit(tx, {
        actor,
        action: "identity.proposal_conflicted",
        targetType: "identity_proposal",
        targetId: id,
        agentId: row.agentId,
        data: { kind: row.kind },
      });
    });
    throw new ApiError(
      "stale_base",
      "The file changed since this proposal was made and the changes overlap. Edit the proposed text (the merge result shows where) and approve your edit.",
      { proposalStatus: "conflict" },
    );
  }
  return outcome;
}

export async function rejectProposal({ id, note, reviewerId, actor }: { id: string; note: string; reviewerId: string; actor: Actor }) {
  await db.$transaction(async (tx) => {
    const row = await openProposal(tx, id, { approving: false });
    await tx.identityProposal.update({ where: { id }, data: { status: "rejected", reviewerId, reviewNote: note, decidedAt: new Date() } });
    await appendAudit(tx, {
      actor,
      action: "identity.proposal_rejected",
      targetType: "identity_proposal",
      targetId: id,
      agentId: row.agentId,
      data: { kind: row.kind, note },
    });
  });
  return { status: "rejected" as const };
}

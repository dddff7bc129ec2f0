// Writes to identity files: operators (editor or API), rollbacks, and agents
// through the worker API, where the rules of rules.ts decide apply / propose / deny.
import "server-only";
import { type Actor, appendAudit } from "@/lib/audit/audit-log";
import { describeCapabilitiesIssues, parseCapabilities, upgradeCapabilities } from "@/lib/contracts/capabilities";
import type { SecurityProfile } from "@/lib/contracts/common";
import {
  IDENTITY_FILE_NAMES,
  type IdentityKind,
  type Trigger,
  type VersionSource,
  type WorkerPutIdentityBody,
  type WriteResult,
} from "@/lib/contracts/identity";
import { db, type Tx } from "@/lib/db";
import { ApiError, notFound } from "@/lib/errors";
import { retireBootstrapIfDone } from "./bootstrap";
import { createProposal, recordRefusedProposal } from "./proposals";
import { decideWrite } from "./rules";
import {
  type Author,
  appendVersion,
  assertIdentitySize,
  checkBase,
  ensureFile,
  type FileWithCurrent,
  isLive,
  lockAgentIdentity,
  staleBase,
} from "./versions";

const RETIRES_BOOTSTRAP: readonly IdentityKind[] = ["SOUL", "IDENTITY"];

/**
 * The agent, not archived. On PostgreSQL under its identity lock (lockAgentIdentity),
 * which archiveAgent (lib/agents/agents.ts) takes too: a write either commits before
 * an archive closes the agent's open proposals, or sees the agent archived.
 */
async function requireAgent(tx: Tx, agentId: string) {
  await lockAgentIdentity(tx, agentId);
  const agent = await tx.agent.findFirst({ where: { id: agentId, archivedAt: null } });
  if (!agent) throw notFound("Agent");
  return agent;
}

function unchanged(file: FileWithCurrent, content: string): boolean {
  return isLive(file.currentVersion) && file.currentVersion.content === content;
}

async function applyChecked(
  tx: Tx,
  args: {
    file: FileWithCurrent;
    baseVersionId: string | null;
    content: string;
    author: Author;
    source: VersionSource;
    reason?: string | null;
    taskId?: string | null;
    actor: Actor;
    auditData?: Record<string, unknown>;
  },
): Promise<Extract<WriteResult, { status: "applied" }>> {
  const { file } = args;
  const check = await checkBase(tx, file, args.baseVersionId, args.content);
  if (!check.ok) throw staleBase(file);
  if (unchanged(file, check.content) && file.currentVersion) {
    return { status: "applied", versionId: file.currentVersion.id, unchanged: true };
  }
  const version = await appendVersion(tx, { ...args, content: check.content, auditData: { ...args.auditData, merged: check.merged } });
  if (RETIRES_BOOTSTRAP.includes(file.kind as IdentityKind)) await retireBootstrapIfDone(tx, file.agentId, args.actor);
  return check.merged ? { status: "applied", versionId: version.id, merged: true } : { status: "applied", versionId: version.id };
}

/** capabilities.yaml is the cage the worker enforces: it is never stored in a shape the worker would refuse (400, with line and column per problem). */
function assertValidContent(kind: IdentityKind, content: string) {
  if (kind !== "CAPABILITIES") return;
  const parsed = parseCapabilities(content);
  if (!parsed.ok) {
    // A file in the shape agents had before the schema: the fix is its upgrade (the cage workers already enforce for it).
    const upgrade = upgradeCapabilities(content);
    const hint = upgrade
      ? `\n\nThis looks like the older capabilities.yaml shape. The same cage in the current shape:\n${upgrade.text}`
      : "";
    throw new ApiError(
      "validation_failed",
      `capabilities.yaml is invalid:\n${describeCapabilitiesIssues(parsed.issues)}${hint}`,
      parsed.issues,
    );
  }
}

/** An operator's save (editor in the browser, or the API with a token). */
export async function writeIdentityAsOperator(args: {
  agentId: string;
  kind: IdentityKind;
  content: string;
  baseVersionId: string | null;
  reason?: string;
  author: Author;
  source: "editor" | "api";
  actor: Actor;
}) {
  assertIdentitySize(args.content);
  assertValidContent(args.kind, args.content);
  return db.$transaction(async (tx) => {
    await requireAgent(tx, args.agentId);
    const file = await ensureFile(tx, args.agentId, args.kind);
    return applyChecked(tx, { ...args, file, reason: args.reason || null });
  });
}

/** Appends a version holding an earlier version's content. */
export async function rollbackIdentity(args: {
  agentId: string;
  kind: IdentityKind;
  versionId: string;
  reason?: string;
  author: Author;
  actor: Actor;
}) {
  return db.$transaction(async (tx) => {
    await requireAgent(tx, args.agentId);
    const file = await ensureFile(tx, args.agentId, args.kind);
    const target = await tx.identityVersion.findFirst({ where: { id: args.versionId, fileId: file.id } });
    if (!target) throw notFound("Version");
    if (target.deleted) {
      throw new ApiError("bad_request", `Version ${target.number} records a deletion; restore a version with content instead`);
    }
    assertValidContent(args.kind, target.content);
    const version = await appendVersion(tx, {
      file,
      content: target.content,
      author: args.author,
      source: "rollback",
      reason: args.reason || `Restored version ${target.number}`,
      actor: args.actor,
      action: "identity.rolled_back",
      auditData: { restoredVersionId: target.id, restoredNumber: target.number },
    });
    if (RETIRES_BOOTSTRAP.includes(args.kind)) await retireBootstrapIfDone(tx, args.agentId, args.actor);
    return { status: "applied" as const, versionId: version.id, number: version.number };
  });
}

type SyncOutcome = { status: number; message: string; data: Record<string, unknown> };

async function addSyncEvent(tx: Tx, taskId: string | null, agentId: string, outcome: SyncOutcome) {
  if (!taskId) return;
  await tx.taskEvent.create({
    data: {
      taskId,
      type: "sync",
      message: outcome.message,
      data: JSON.stringify({ httpStatus: outcome.status, ...outcome.data }),
      actorType: "worker",
      actorId: agentId,
    },
  });
}

/** PUT /api/worker/identity/{kind}: the worker writes (or proposes) for its own agent. */
export async function writeIdentityAsAgent({
  agent,
  kind,
  body,
  actor,
}: {
  agent: { id: string; role: "lead" | "worker"; securityProfile: SecurityProfile };
  kind: IdentityKind;
  body: WorkerPutIdentityBody;
  actor: Actor;
}): Promise<{ httpStatus: 200 | 202; result: WriteResult }> {
  const fileName = IDENTITY_FILE_NAMES[kind];
  const writer = agent.role === "lead" ? "lead" : "agent";
  const author: Author = { type: writer, id: agent.id };
  // Only the agent's own task counts, for the timeline and for its grant; the grant
  // only while the task is claimed (in progress) by this agent. A write that names no
  // task (the body docs/architecture.md gives: content, base, reason) comes from the task the agent
  // is running: its most recently claimed one still in progress.
  const select = { id: true, status: true, identityGrant: true } as const;
  const task = body.taskId
    ? await db.task.findFirst({ where: { id: body.taskId, agentId: agent.id }, select })
    : await db.task.findFirst({ where: { agentId: agent.id, status: "in_progress" }, orderBy: { claimedAt: "desc" }, select });
  // A task it names must be its own agent's, as for memories and tools (lib/tasks/task-owner.ts):
  // the write would be shown on that task's timeline. Nothing is stored or audited.
  if (body.taskId && !task) throw new ApiError("forbidden", "That task is not this agent's", { taskId: body.taskId });
  const taskId = task?.id ?? null;
  const granted = task?.status === "in_progress" && (JSON.parse(task.identityGrant) as string[]).includes(kind);
  const trigger: Trigger = granted ? "user_request" : "agent";
  const decision = decideWrite({ kind, writer, profile: agent.securityProfile, granted, mode: body.mode });
  const base = { kind, file: fileName, trigger, mode: body.mode, reason: body.reason };

  /** Every refusal is audited and on the task's timeline; a profile's refusal keeps the agent's text as a `refused` proposal. */
  const refuse = async (error: ApiError, keepText = false) => {
    const proposalId = await db.$transaction(async (tx) => {
      const kept = keepText
        ? await recordRefusedProposal(tx, {
            file: await ensureFile(tx, agent.id, kind),
            agentId: agent.id,
            baseVersionId: body.baseVersionId,
            content: body.content,
            reason: body.reason,
            note: error.message,
            taskId,
          })
        : null;
      await appendAudit(tx, {
        actor,
        action: "identity.write_refused",
        targetType: kept ? "identity_proposal" : "identity_file",
        targetId: kept?.id ?? null,
        agentId: agent.id,
        data: { ...base, code: error.code, profile: agent.securityProfile },
      });
      await addSyncEvent(tx, taskId, agent.id, {
        status: error.status,
        message: `${fileName}: refused (${error.code})${kept ? "; the text is kept with the agent's proposals" : ""}`,
        data: { ...base, code: error.code, ...(kept ? { proposalId: kept.id } : {}) },
      });
      return kept?.id ?? null;
    });
    return proposalId
      ? new ApiError(error.code, error.message, { ...(error.details as object), proposalId, proposalStatus: "refused" })
      : error;
  };

  try {
    assertIdentitySize(body.content);
  } catch (error) {
    throw await refuse(error as ApiError);
  }
  if (decision.outcome === "deny") {
    const error = new ApiError(decision.code, decision.message, { kind, profile: agent.securityProfile });
    throw await refuse(error, decision.code === "profile_forbids");
  }

  const outcome = await db.$transaction(async (tx) => {
    await requireAgent(tx, agent.id);
    const file = await ensureFile(tx, agent.id, kind);
    if (decision.outcome === "propose") {
      const proposed = await createProposal(tx, {
        file,
        agentId: agent.id,
        baseVersionId: body.baseVersionId,
        content: body.content,
        reason: body.reason,
        trigger,
        taskId,
        actor,
      });
      if (proposed.kind === "unchanged") {
        await addSyncEvent(tx, taskId, agent.id, {
          status: 200,
          message: `${fileName}: unchanged (the proposed text is the current version; nothing to review)`,
          data: { ...base, versionId: proposed.versionId, merged: false },
        });
        return { httpStatus: 200 as const, result: { status: "applied" as const, versionId: proposed.versionId, unchanged: true } };
      }
      const { proposal } = proposed;
      if (proposal.status === "conflict") return { conflict: proposal.id, file };
      await addSyncEvent(tx, taskId, agent.id, {
        status: 202,
        message:
          proposed.kind === "repeated"
            ? `${fileName}: the same change already waits for review (proposal ${proposal.id})`
            : `${fileName}: proposal queued for review`,
        data: { ...base, proposalId: proposal.id },
      });
      return { httpStatus: 202 as const, result: { status: "pending" as const, proposalId: proposal.id } };
    }
    const check = await checkBase(tx, file, body.baseVersionId, body.content);
    if (!check.ok) return { stale: true as const, file };
    const result = await applyChecked(tx, {
      file,
      baseVersionId: body.baseVersionId,
      content: body.content,
      author,
      source: "agent_write",
      reason: body.reason,
      taskId,
      actor,
      auditData: { trigger, granted },
    });
    await addSyncEvent(tx, taskId, agent.id, {
      status: 200,
      message: result.unchanged ? `${fileName}: unchanged` : `${fileName}: applied${result.merged ? " (merged)" : ""}`,
      data: { ...base, versionId: result.versionId, merged: result.merged ?? false },
    });
    return { httpStatus: 200 as const, result };
  });

  if (outcome.httpStatus !== undefined) return { httpStatus: outcome.httpStatus, result: outcome.result };
  const extra = outcome.conflict ? { proposalId: outcome.conflict, proposalStatus: "conflict" } : {};
  throw await refuse(staleBase(outcome.file, extra));
}

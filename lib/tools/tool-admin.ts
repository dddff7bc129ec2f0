// Agent-authored tools as operators see and govern them: every tool with its
// versions, enable/disable, delete, and the review of changes an agent proposed.
import "server-only";
import { findAgent } from "@/lib/agents/agents";
import { type Actor, appendAudit } from "@/lib/audit/audit-log";
import type { AgentToolDetailDto, AgentToolDto, ToolVersionDto } from "@/lib/contracts/tools";
import { db, usesPostgres } from "@/lib/db";
import { ApiError, notFound } from "@/lib/errors";
import type { AgentTool, AgentToolVersion } from "@/lib/generated/prisma/client";
import { lockTool } from "./agent-tools";

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function toVersionDto(v: AgentToolVersion): ToolVersionDto {
  return {
    id: v.id,
    version: v.version,
    op: v.op === "delete" ? "delete" : "write",
    status: v.status === "pending" ? "pending" : v.status === "rejected" ? "rejected" : "applied",
    description: v.description,
    source: v.source,
    inputSchema: (parseJson(v.inputSchema) ?? {}) as Record<string, unknown>,
    timeoutMs: v.timeoutMs,
    testInput: parseJson(v.testInput),
    testOutput: parseJson(v.testOutput),
    testDurationMs: v.testDurationMs,
    author: { type: v.actorType, id: v.actorId, label: v.actorLabel },
    reason: v.reason,
    taskId: v.taskId,
    reviewNote: v.reviewNote,
    reviewedAt: v.reviewedAt?.toISOString() ?? null,
    createdAt: v.createdAt.toISOString(),
  };
}

function toToolDto(tool: AgentTool, versions: Pick<AgentToolVersion, "id" | "version" | "status">[]): AgentToolDto {
  return {
    id: tool.id,
    name: tool.name,
    description: tool.description,
    enabled: tool.enabled,
    deleted: tool.deletedAt !== null,
    currentVersionId: tool.currentVersionId,
    currentVersion: versions.find((v) => v.id === tool.currentVersionId)?.version ?? null,
    pendingChanges: versions.filter((v) => v.status === "pending").length,
    callCount: tool.callCount,
    failureCount: tool.failureCount,
    lastCalledAt: tool.lastCalledAt?.toISOString() ?? null,
    lastError: tool.lastError,
    updatedAt: tool.updatedAt.toISOString(),
  };
}

export async function listAgentTools({ agentId }: { agentId: string }): Promise<AgentToolDto[]> {
  await findAgent({ id: agentId });
  const tools = await db.agentTool.findMany({
    where: { agentId },
    // Live tools (deletedAt NULL) first: SQLite sorts NULLs first in ascending order, PostgreSQL last unless told.
    orderBy: [{ deletedAt: usesPostgres() ? { sort: "asc", nulls: "first" } : "asc" }, { name: "asc" }],
    include: { versions: { select: { id: true, version: true, status: true } } },
  });
  return tools.map((tool) => toToolDto(tool, tool.versions));
}

async function findTool(agentId: string, name: string) {
  await findAgent({ id: agentId });
  const tool = await db.agentTool.findUnique({ where: { agentId_name: { agentId, name } } });
  if (!tool) throw notFound(`Tool "${name}"`);
  return tool;
}

/** How many versions one tool's answer holds (as an identity file's history, and an agent's built-in changes). */
const TOOL_VERSIONS_SHOWN = 200;

/**
 * One tool with its newest versions, newest first, and always the version in force and
 * every one waiting for review, however old (the page shows the first and decides the
 * others); its counts are over every version.
 */
export async function getAgentTool({ agentId, name }: { agentId: string; name: string }): Promise<AgentToolDetailDto> {
  const tool = await findTool(agentId, name);
  // An agent in a loop writes a version a minute, each with its source and test data:
  // the answer is bounded, never every version there is.
  const [all, newest] = await Promise.all([
    db.agentToolVersion.findMany({ where: { toolId: tool.id }, select: { id: true, version: true, status: true } }),
    db.agentToolVersion.findMany({ where: { toolId: tool.id }, orderBy: { version: "desc" }, take: TOOL_VERSIONS_SHOWN }),
  ]);
  const shown = new Set(newest.map((version) => version.id));
  const older = all.filter((version) => !shown.has(version.id) && (version.id === tool.currentVersionId || version.status === "pending"));
  const kept = older.length
    ? await db.agentToolVersion.findMany({ where: { id: { in: older.map((version) => version.id) } }, orderBy: { version: "desc" } })
    : [];
  return { ...toToolDto(tool, all), versions: [...newest, ...kept].map(toVersionDto) };
}

export async function setToolEnabled({ agentId, name, enabled, actor }: { agentId: string; name: string; enabled: boolean; actor: Actor }) {
  const tool = await findTool(agentId, name);
  await db.$transaction(async (tx) => {
    await tx.agentTool.update({ where: { id: tool.id }, data: { enabled } });
    await appendAudit(tx, {
      actor,
      action: enabled ? "tool.enabled" : "tool.disabled",
      targetType: "agent_tool",
      targetId: tool.id,
      agentId,
      data: { name },
    });
  });
  return getAgentTool({ agentId, name });
}

/** An operator's delete: unregisters the tool at once; its versions stay. */
export async function deleteToolAsOperator({ agentId, name, actor }: { agentId: string; name: string; actor: Actor }) {
  const tool = await findTool(agentId, name);
  if (tool.deletedAt) throw new ApiError("conflict", `Tool "${name}" is already deleted`);
  await db.$transaction(async (tx) => {
    await lockTool(tx, tool.id);
    // Read again under the lock: another operator may have deleted it meanwhile.
    const fresh = await tx.agentTool.findUnique({ where: { id: tool.id }, select: { deletedAt: true } });
    if (fresh?.deletedAt) throw new ApiError("conflict", `Tool "${name}" is already deleted`);
    const last = await tx.agentToolVersion.findFirst({ where: { toolId: tool.id }, orderBy: { version: "desc" } });
    await tx.agentToolVersion.create({
      data: {
        toolId: tool.id,
        version: (last?.version ?? 0) + 1,
        op: "delete",
        status: "applied",
        reason: "deleted by an operator",
        actorType: actor.type,
        actorId: actor.id,
        actorLabel: actor.label,
      },
    });
    await tx.agentTool.update({ where: { id: tool.id }, data: { deletedAt: new Date() } });
    await appendAudit(tx, { actor, action: "tool.deleted", targetType: "agent_tool", targetId: tool.id, agentId, data: { name } });
  });
}

/** Approves or rejects a pending change; an approved write becomes the tool's version in force. */
export async function reviewToolChange({
  agentId,
  name,
  versionId,
  decision,
  note,
  actor,
  reviewerId,
}: {
  agentId: string;
  name: string;
  versionId: string;
  decision: "approve" | "reject";
  note?: string;
  actor: Actor;
  reviewerId: string;
}) {
  const tool = await findTool(agentId, name);
  await db.$transaction(async (tx) => {
    await lockTool(tx, tool.id);
    const version = await tx.agentToolVersion.findFirst({ where: { id: versionId, toolId: tool.id } });
    if (!version) throw notFound("Tool change");
    if (version.status !== "pending") throw new ApiError("conflict", `This change was already ${version.status}`);
    const status = decision === "approve" ? "applied" : "rejected";
    await tx.agentToolVersion.update({
      where: { id: version.id },
      data: { status, reviewedById: reviewerId, reviewNote: note ?? null, reviewedAt: new Date() },
    });
    if (status === "applied") {
      await tx.agentTool.update({
        where: { id: tool.id },
        data:
          version.op === "delete"
            ? { deletedAt: new Date() }
            : { currentVersionId: version.id, description: version.description, deletedAt: null },
      });
    }
    await appendAudit(tx, {
      actor,
      action: decision === "approve" ? "tool.change_approved" : "tool.change_rejected",
      targetType: "agent_tool",
      targetId: tool.id,
      agentId,
      data: { name, version: version.version, op: version.op, note: note ?? null },
    });
  });
  return getAgentTool({ agentId, name });
}

// Agent-authored tools as the worker sees them: what is registered for the agent,
// and the agent's writes and deletes. The worker compiles and sandbox-tests a tool
// before it sends it here (worker/tool-service.ts); the app decides, from the
// profile and capabilities.yaml, whether the change applies or waits for an operator,
// and keeps every change as an append-only version.
import "server-only";
import { type Actor, appendAudit } from "@/lib/audit/audit-log";
import type { SecurityProfile } from "@/lib/contracts/common";
import {
  type ActiveTool,
  isBuiltinToolName,
  suggestToolName,
  type ToolChangeResult,
  type ToolPolicy,
  type WorkerWriteToolBody,
} from "@/lib/contracts/tools";
import { db, type Tx, usesPostgres } from "@/lib/db";
import { ApiError, notFound } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { assertOwnTask } from "@/lib/tasks/task-owner";
import { decideToolPolicy } from "./policy";

type AgentRef = { id: string; name: string; securityProfile: SecurityProfile };

export async function toolPolicyFor(agent: AgentRef): Promise<ToolPolicy> {
  const file = await db.identityFile.findUnique({
    where: { agentId_kind: { agentId: agent.id, kind: "CAPABILITIES" } },
    include: { currentVersion: { select: { content: true, deleted: true } } },
  });
  const capabilities = file?.currentVersion && !file.currentVersion.deleted ? file.currentVersion.content : null;
  return decideToolPolicy({ profile: agent.securityProfile, capabilities });
}

/** The tools registered for an agent: not deleted, enabled, with an applied version. */
export async function listActiveTools({ agentId }: { agentId: string }): Promise<ActiveTool[]> {
  const tools = await db.agentTool.findMany({
    where: { agentId, deletedAt: null, enabled: true, currentVersionId: { not: null } },
    orderBy: { name: "asc" },
  });
  if (tools.length === 0) return [];
  const versions = await db.agentToolVersion.findMany({ where: { id: { in: tools.map((t) => t.currentVersionId as string) } } });
  const byId = new Map(versions.map((v) => [v.id, v]));
  return tools.flatMap((tool) => {
    const v = byId.get(tool.currentVersionId as string);
    if (!v) return [];
    return [
      {
        name: tool.name,
        description: v.description,
        versionId: v.id,
        version: v.version,
        inputSchema: JSON.parse(v.inputSchema) as Record<string, unknown>,
        timeoutMs: v.timeoutMs,
        compiledCode: v.compiledCode,
      },
    ];
  });
}

function refuseBuiltin(name: string, taken: string[]) {
  if (isBuiltinToolName(name)) {
    const suggestion = suggestToolName(name, taken);
    throw new ApiError(
      "conflict",
      `"${name}" is a built-in tool. Choose another name, e.g. "${suggestion}", or change the built-in itself with --builtin`,
      { suggestion },
    );
  }
}

function refuseForbidden(policy: ToolPolicy) {
  if (policy.changes === "forbidden") throw new ApiError("profile_forbids", `Tool changes are not allowed: ${policy.reason}`);
}

/**
 * On PostgreSQL, locks the tool's row (FOR UPDATE) until the transaction ends: every
 * change to a tool's versions takes this lock first, so version numbers and review
 * decisions are made one at a time across instances. SQLite runs one write
 * transaction at a time already.
 */
export async function lockTool(tx: Tx, toolId: string): Promise<void> {
  if (usesPostgres()) await tx.$queryRaw`SELECT "id" FROM "AgentTool" WHERE "id" = ${toolId} FOR UPDATE`;
}

/** The agent's tool named `name`, created when missing (without a race between instances on PostgreSQL). */
async function ensureTool(tx: Tx, agentId: string, name: string, description: string) {
  if (usesPostgres()) {
    await tx.$executeRaw`INSERT INTO "AgentTool" ("id", "agentId", "name", "description", "updatedAt")
      VALUES (${newId()}, ${agentId}, ${name}, ${description}, now())
      ON CONFLICT ("agentId", "name") DO NOTHING`;
    return tx.agentTool.findUniqueOrThrow({ where: { agentId_name: { agentId, name } } });
  }
  return (
    (await tx.agentTool.findUnique({ where: { agentId_name: { agentId, name } } })) ??
    (await tx.agentTool.create({ data: { agentId, name, description } }))
  );
}

async function nextVersion(tx: Tx, toolId: string): Promise<number> {
  await lockTool(tx, toolId);
  const last = await tx.agentToolVersion.findFirst({ where: { toolId }, orderBy: { version: "desc" }, select: { version: true } });
  return (last?.version ?? 0) + 1;
}

function actorFields(actor: Actor) {
  return { actorType: actor.type, actorId: actor.id, actorLabel: actor.label };
}

/** A compiled, tested tool from the agent: applied (201) or a proposal (202), per policy. */
export async function writeToolAsAgent({
  agent,
  body,
  actor,
}: {
  agent: AgentRef;
  body: WorkerWriteToolBody;
  actor: Actor;
}): Promise<{ httpStatus: 201 | 202; result: ToolChangeResult }> {
  const names = (await db.agentTool.findMany({ where: { agentId: agent.id }, select: { name: true } })).map((t) => t.name);
  refuseBuiltin(body.name, names);
  await assertOwnTask(agent.id, body.taskId);
  const policy = await toolPolicyFor(agent);
  refuseForbidden(policy);
  const status = policy.changes === "apply" ? "applied" : "pending";
  const result = await db.$transaction(async (tx) => {
    const tool = await ensureTool(tx, agent.id, body.name, body.description);
    const version = await tx.agentToolVersion.create({
      data: {
        toolId: tool.id,
        version: await nextVersion(tx, tool.id),
        op: "write",
        status,
        description: body.description,
        source: body.source,
        compiledCode: body.compiledCode,
        inputSchema: JSON.stringify(body.inputSchema),
        timeoutMs: body.timeoutMs ?? null,
        testInput: JSON.stringify(body.testInput ?? null),
        testOutput: JSON.stringify(body.testOutput ?? null),
        testDurationMs: body.testDurationMs,
        reason: body.reason,
        taskId: body.taskId ?? null,
        ...actorFields(actor),
      },
    });
    if (status === "applied") {
      await tx.agentTool.update({
        where: { id: tool.id },
        data: { currentVersionId: version.id, description: body.description, deletedAt: null },
      });
    }
    await appendAudit(tx, {
      actor,
      action: status === "applied" ? "tool.written" : "tool.proposed",
      targetType: "agent_tool",
      targetId: tool.id,
      agentId: agent.id,
      data: { name: body.name, version: version.version, versionId: version.id, reason: body.reason, taskId: body.taskId ?? null },
    });
    return { status, name: body.name, versionId: version.id, version: version.version } as const;
  });
  return { httpStatus: status === "applied" ? 201 : 202, result };
}

/** Unregisters an agent's tool (its history stays), or proposes that, per policy. */
export async function deleteToolAsAgent({
  agent,
  name,
  reason,
  taskId,
  actor,
}: {
  agent: AgentRef;
  name: string;
  reason: string;
  taskId?: string;
  actor: Actor;
}): Promise<{ httpStatus: 200 | 202; result: ToolChangeResult }> {
  if (isBuiltinToolName(name)) throw new ApiError("forbidden", `"${name}" is a built-in tool; built-ins cannot be deleted`);
  const tool = await db.agentTool.findUnique({ where: { agentId_name: { agentId: agent.id, name } } });
  if (!tool || tool.deletedAt) throw notFound(`Tool "${name}"`);
  await assertOwnTask(agent.id, taskId);
  const policy = await toolPolicyFor(agent);
  refuseForbidden(policy);
  const status = policy.changes === "apply" ? "applied" : "pending";
  const result = await db.$transaction(async (tx) => {
    const version = await tx.agentToolVersion.create({
      data: {
        toolId: tool.id,
        version: await nextVersion(tx, tool.id),
        op: "delete",
        status,
        reason,
        taskId: taskId ?? null,
        ...actorFields(actor),
      },
    });
    if (status === "applied") await tx.agentTool.update({ where: { id: tool.id }, data: { deletedAt: new Date() } });
    await appendAudit(tx, {
      actor,
      action: status === "applied" ? "tool.deleted" : "tool.delete_proposed",
      targetType: "agent_tool",
      targetId: tool.id,
      agentId: agent.id,
      data: { name, version: version.version, reason, taskId: taskId ?? null },
    });
    return { status, name, versionId: version.id, version: version.version } as const;
  });
  return { httpStatus: status === "applied" ? 200 : 202, result };
}

/** Counts a call for the operator's view. Calls are frequent: no audit row each. */
export async function recordToolCall({
  agentId,
  name,
  ok,
  error,
}: {
  agentId: string;
  name: string;
  ok: boolean;
  error?: string;
}): Promise<void> {
  const tool = await db.agentTool.findUnique({ where: { agentId_name: { agentId, name } }, select: { id: true } });
  if (!tool) throw notFound(`Tool "${name}"`);
  await db.agentTool.update({
    where: { id: tool.id },
    data: {
      callCount: { increment: 1 },
      lastCalledAt: new Date(),
      ...(ok ? {} : { failureCount: { increment: 1 }, lastError: (error ?? "failed").slice(0, 2000) }),
    },
  });
}

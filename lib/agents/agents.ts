// Agents: the swarm's members. Archiving (DELETE) keeps their history: identity
// versions, tasks and the audit trail outlive the agent; its tokens stop working.
import "server-only";
import { type Actor, appendAudit } from "@/lib/audit/audit-log";
import type { AgentDto, CreateAgentBody, UpdateAgentBody } from "@/lib/contracts/agents";
import type { UserRole } from "@/lib/contracts/common";
import { db, type Tx } from "@/lib/db";
import { ApiError, notFound } from "@/lib/errors";
import type { Agent } from "@/lib/generated/prisma/client";
import { initializeAgentIdentity } from "@/lib/identity/initialize";
import { lockAgentIdentity } from "@/lib/identity/versions";

/** An agent whose worker has not called in for this long shows as offline. */
export function offlineAfterMs(): number {
  const value = Number(process.env.SWARMDECK_AGENT_OFFLINE_MS);
  return Number.isFinite(value) && value > 0 ? value : 90_000;
}

export function toAgentDto(agent: Agent, now = Date.now()): AgentDto {
  const online = agent.lastSeenAt !== null && now - agent.lastSeenAt.getTime() < offlineAfterMs();
  return {
    id: agent.id,
    name: agent.name,
    displayName: agent.displayName,
    description: agent.description,
    role: agent.role === "lead" ? "lead" : "worker",
    status: online ? (agent.status === "busy" ? "busy" : "idle") : "offline",
    online,
    capabilities: JSON.parse(agent.capabilities) as string[],
    securityProfile: agent.securityProfile as AgentDto["securityProfile"],
    maxConcurrentTasks: agent.maxConcurrentTasks,
    lastSeenAt: agent.lastSeenAt?.toISOString() ?? null,
    workerVersion: agent.workerVersion,
    workerHostname: agent.workerHostname,
    harness: agent.harness,
    setup:
      agent.setupStatus === "ok" || agent.setupStatus === "failed"
        ? { status: agent.setupStatus, output: agent.setupOutput ?? "", hash: agent.setupHash, at: agent.setupAt?.toISOString() ?? null }
        : null,
    createdAt: agent.createdAt.toISOString(),
    updatedAt: agent.updatedAt.toISOString(),
  };
}

export async function listAgents(): Promise<AgentDto[]> {
  const agents = await db.agent.findMany({ where: { archivedAt: null }, orderBy: { name: "asc" } });
  const now = Date.now();
  return agents.map((agent) => toAgentDto(agent, now));
}

export async function findAgent({ id, tx }: { id: string; tx?: Tx }): Promise<Agent> {
  const agent = await (tx ?? db).agent.findFirst({ where: { id, archivedAt: null } });
  if (!agent) throw notFound("Agent");
  return agent;
}

async function assertNameFree(tx: Tx, name: string, exceptId?: string) {
  const taken = await tx.agent.findUnique({ where: { name }, select: { id: true } });
  if (taken && taken.id !== exceptId) throw new ApiError("conflict", `An agent named "${name}" already exists`, { field: "name" });
}

export async function createAgent({ input, actor }: { input: CreateAgentBody; actor: Actor }): Promise<AgentDto> {
  const agent = await db.$transaction(async (tx) => {
    await assertNameFree(tx, input.name);
    const created = await tx.agent.create({
      data: {
        name: input.name,
        displayName: input.displayName ?? "",
        description: input.description ?? "",
        role: input.role ?? "worker",
        securityProfile: input.securityProfile ?? "standard",
        capabilities: JSON.stringify(input.capabilities ?? []),
        maxConcurrentTasks: input.maxConcurrentTasks ?? 1,
      },
    });
    await appendAudit(tx, {
      actor,
      action: "agent.created",
      targetType: "agent",
      targetId: created.id,
      agentId: created.id,
      data: {
        name: created.name,
        role: created.role,
        securityProfile: created.securityProfile,
        identityStart: input.identityStart ?? "templates",
      },
    });
    await initializeAgentIdentity({ tx, agent: created, actor, start: input.identityStart ?? "templates" });
    return created;
  });
  return toAgentDto(agent);
}

export async function updateAgent({
  id,
  input,
  actor,
  role,
}: {
  id: string;
  input: UpdateAgentBody;
  actor: Actor;
  role: UserRole;
}): Promise<AgentDto> {
  if (input.securityProfile !== undefined && role !== "admin") {
    throw new ApiError("forbidden", "Only an admin may change an agent's security profile");
  }
  const agent = await db.$transaction(async (tx) => {
    const before = await findAgent({ id, tx });
    if (input.name !== undefined) await assertNameFree(tx, input.name, id);
    const updated = await tx.agent.update({
      where: { id },
      data: {
        name: input.name,
        displayName: input.displayName,
        description: input.description,
        role: input.role,
        securityProfile: input.securityProfile,
        capabilities: input.capabilities === undefined ? undefined : JSON.stringify(input.capabilities),
        maxConcurrentTasks: input.maxConcurrentTasks,
      },
    });
    const changes = Object.fromEntries(
      (Object.keys(input) as (keyof UpdateAgentBody)[])
        .filter((key) => input[key] !== undefined)
        .map((key) => [key, { from: key === "capabilities" ? JSON.parse(before.capabilities) : before[key], to: input[key] }]),
    );
    if (input.securityProfile !== undefined && input.securityProfile !== before.securityProfile) {
      await appendAudit(tx, {
        actor,
        action: "agent.security_profile_changed",
        targetType: "agent",
        targetId: id,
        agentId: id,
        data: { from: before.securityProfile, to: input.securityProfile },
      });
    }
    await appendAudit(tx, { actor, action: "agent.updated", targetType: "agent", targetId: id, agentId: id, data: { changes } });
    return updated;
  });
  return toAgentDto(agent);
}

/** What an archived agent's open proposals say once closed: no one can approve them any more (lib/identity/proposals.ts). */
const ARCHIVED_PROPOSAL_NOTE = "The agent was archived";

export async function archiveAgent({ id, actor, reviewerId }: { id: string; actor: Actor; reviewerId: string }): Promise<void> {
  await db.$transaction(async (tx) => {
    // An identity write in flight (lib/identity/writes.ts, requireAgent) commits first
    // or finds the agent archived, so no proposal is left open behind the archive.
    await lockAgentIdentity(tx, id);
    const agent = await findAgent({ id, tx });
    const now = new Date();
    // Free the name for a new agent; the archived one keeps its history under a suffixed name.
    await tx.agent.update({ where: { id }, data: { archivedAt: now, name: `${agent.name}~archived-${agent.id}` } });
    await tx.workerToken.updateMany({ where: { agentId: id, revokedAt: null }, data: { revokedAt: now } });
    await tx.task.updateMany({
      where: { agentId: id, status: { in: ["pending", "offered"] } },
      data: { agentId: null, status: "unassigned" },
    });
    // Its open proposals leave the review queue: an archived agent's identity can no
    // longer change, so they could be neither approved nor rejected there.
    const closed = await tx.identityProposal.updateMany({
      where: { agentId: id, status: { in: ["pending", "conflict"] } },
      data: { status: "rejected", reviewerId, reviewNote: ARCHIVED_PROPOSAL_NOTE, decidedAt: now },
    });
    // Its own schedules stop: each run would only fail to create a task for it.
    const stopped = await tx.schedule.updateMany({
      where: { agentId: id, targetKind: "agent", enabled: true },
      data: { enabled: false, nextRunAt: null },
    });
    await appendAudit(tx, {
      actor,
      action: "agent.archived",
      targetType: "agent",
      targetId: id,
      agentId: id,
      data: { name: agent.name, proposalsClosed: closed.count, schedulesDisabled: stopped.count },
    });
  });
}

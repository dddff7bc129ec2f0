// Worker tokens: one agent's credentials for the worker protocol. The secret is
// returned once at creation and stored only as a SHA-256 hash.
import "server-only";
import { findAgent } from "@/lib/agents/agents";
import { type Actor, appendAudit } from "@/lib/audit/audit-log";
import { generateToken, hashToken, tokenDisplayPrefix } from "@/lib/auth/secrets";
import { type CreatedTokenDto, type TokenDto, WORKER_TOKEN_PREFIX } from "@/lib/contracts/tokens";
import { db, usesPostgres } from "@/lib/db";
import { notFound } from "@/lib/errors";
import type { WorkerToken } from "@/lib/generated/prisma/client";

export function toTokenDto(row: Pick<WorkerToken, "id" | "name" | "prefix" | "lastUsedAt" | "revokedAt" | "createdAt">): TokenDto {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}

export async function listWorkerTokens({ agentId }: { agentId: string }): Promise<TokenDto[]> {
  await findAgent({ id: agentId });
  const rows = await db.workerToken.findMany({
    where: { agentId },
    // PostgreSQL: ids break ties in the order SQLite returns them (insertion order).
    orderBy: usesPostgres() ? [{ createdAt: "desc" }, { id: "desc" }] : { createdAt: "desc" },
  });
  return rows.map(toTokenDto);
}

export async function createWorkerToken({
  agentId,
  name,
  actor,
  createdById,
}: {
  agentId: string;
  name: string;
  actor: Actor;
  createdById: string;
}): Promise<CreatedTokenDto> {
  const token = generateToken(WORKER_TOKEN_PREFIX);
  const row = await db.$transaction(async (tx) => {
    const agent = await findAgent({ id: agentId, tx });
    const created = await tx.workerToken.create({
      data: { agentId, name, tokenHash: hashToken(token), prefix: tokenDisplayPrefix(token), createdById },
    });
    await appendAudit(tx, {
      actor,
      action: "worker_token.created",
      targetType: "worker_token",
      targetId: created.id,
      agentId,
      data: { name, agent: agent.name, prefix: created.prefix },
    });
    return created;
  });
  return { ...toTokenDto(row), token };
}

/** Revokes at once: the next request with the token gets 401. Revoking twice changes nothing. */
export async function revokeWorkerToken({ agentId, tokenId, actor }: { agentId: string; tokenId: string; actor: Actor }): Promise<void> {
  await db.$transaction(async (tx) => {
    const row = await tx.workerToken.findFirst({ where: { id: tokenId, agentId } });
    if (!row) throw notFound("Worker token");
    if (row.revokedAt) return;
    await tx.workerToken.update({ where: { id: row.id }, data: { revokedAt: new Date() } });
    await appendAudit(tx, {
      actor,
      action: "worker_token.revoked",
      targetType: "worker_token",
      targetId: row.id,
      agentId,
      data: { name: row.name, prefix: row.prefix },
    });
  });
}

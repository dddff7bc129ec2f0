// Operator API tokens (`Authorization: Bearer sdo_...`): each belongs to a user and
// acts with that user's role. Shown once at creation, stored as a SHA-256 hash.
import "server-only";
import { type Actor, appendAudit } from "@/lib/audit/audit-log";
import { generateToken, hashToken, tokenDisplayPrefix } from "@/lib/auth/secrets";
import { type ApiTokenDto, OPERATOR_TOKEN_PREFIX } from "@/lib/contracts/tokens";
import { db, usesPostgres } from "@/lib/db";
import { ApiError, notFound } from "@/lib/errors";
import type { ApiToken, User } from "@/lib/generated/prisma/client";
import { toTokenDto } from "./worker-tokens";

function toApiTokenDto(row: ApiToken & { user: Pick<User, "id" | "email" | "role"> }): ApiTokenDto {
  return { ...toTokenDto(row), owner: { id: row.user.id, email: row.user.email, role: row.user.role } };
}

const ownerSelect = { select: { id: true, email: true, role: true } } as const;

export async function listApiTokens(): Promise<ApiTokenDto[]> {
  const rows = await db.apiToken.findMany({
    include: { user: ownerSelect },
    // PostgreSQL: ids break ties in the order SQLite returns them (insertion order).
    orderBy: usesPostgres() ? [{ createdAt: "desc" }, { id: "desc" }] : { createdAt: "desc" },
  });
  return rows.map(toApiTokenDto);
}

export async function createApiToken({
  name,
  userId,
  actor,
}: {
  name: string;
  userId: string;
  actor: Actor;
}): Promise<ApiTokenDto & { token: string }> {
  const token = generateToken(OPERATOR_TOKEN_PREFIX);
  const row = await db.$transaction(async (tx) => {
    const owner = await tx.user.findUnique({ where: { id: userId } });
    if (!owner) throw notFound("User");
    if (owner.disabledAt) throw new ApiError("conflict", "That user is disabled; enable them before giving them a token");
    const created = await tx.apiToken.create({
      data: { userId, name, tokenHash: hashToken(token), prefix: tokenDisplayPrefix(token) },
      include: { user: ownerSelect },
    });
    await appendAudit(tx, {
      actor,
      action: "api_token.created",
      targetType: "api_token",
      targetId: created.id,
      data: { name, prefix: created.prefix, userId, email: owner.email },
    });
    return created;
  });
  return { ...toApiTokenDto(row), token };
}

export async function revokeApiToken({ id, actor }: { id: string; actor: Actor }): Promise<void> {
  await db.$transaction(async (tx) => {
    const row = await tx.apiToken.findUnique({ where: { id }, include: { user: ownerSelect } });
    if (!row) throw notFound("API token");
    if (row.revokedAt) return;
    await tx.apiToken.update({ where: { id }, data: { revokedAt: new Date() } });
    await appendAudit(tx, {
      actor,
      action: "api_token.revoked",
      targetType: "api_token",
      targetId: id,
      data: { name: row.name, prefix: row.prefix, userId: row.userId, email: row.user.email },
    });
  });
}

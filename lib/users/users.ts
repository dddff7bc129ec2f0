// Operator accounts (admin only). The swarm always keeps one active admin: the
// last one can be neither demoted nor disabled. Passwords never reach the audit log.
import "server-only";
import { type Actor, appendAudit } from "@/lib/audit/audit-log";
import { endUserSessions } from "@/lib/auth/operator-sessions";
import { hashPassword } from "@/lib/auth/passwords";
import type { CreateUserBody, UpdateUserBody, UserDto } from "@/lib/contracts/users";
import { db, type Tx, usesPostgres } from "@/lib/db";
import { ApiError, notFound } from "@/lib/errors";
import type { User } from "@/lib/generated/prisma/client";

export function toUserDto(user: User): UserDto {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    role: user.role as UserDto["role"],
    disabled: user.disabledAt !== null,
    lastLoginAt: user.lastLoginAt?.toISOString() ?? null,
    createdAt: user.createdAt.toISOString(),
  };
}

export async function listUsers(): Promise<UserDto[]> {
  const users = await db.user.findMany({ orderBy: usesPostgres() ? [{ createdAt: "asc" }, { id: "asc" }] : { createdAt: "asc" } });
  return users.map(toUserDto);
}

export async function createUser({ input, actor }: { input: CreateUserBody; actor: Actor }): Promise<UserDto> {
  // Hash outside the transaction: bcrypt takes ~200 ms and the connection lock is shared.
  const passwordHash = await hashPassword(input.password);
  const user = await db.$transaction(async (tx) => {
    if (await tx.user.findUnique({ where: { email: input.email }, select: { id: true } })) {
      throw new ApiError("conflict", `A user with the email ${input.email} already exists`, { field: "email" });
    }
    const created = await tx.user.create({ data: { email: input.email, name: input.name ?? "", role: input.role, passwordHash } });
    await appendAudit(tx, {
      actor,
      action: "user.created",
      targetType: "user",
      targetId: created.id,
      data: { email: created.email, role: created.role },
    });
    return created;
  });
  return toUserDto(user);
}

async function assertAnotherActiveAdmin(tx: Tx, userId: string) {
  // On PostgreSQL two instances could each see the other admin and demote both: this
  // check takes turns across the cluster until the transaction ends (SQLite has one writer).
  if (usesPostgres()) await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('swarmdeck:last-admin'))`;
  const others = await tx.user.count({ where: { role: "admin", disabledAt: null, id: { not: userId } } });
  if (others === 0) {
    throw new ApiError("conflict", "This is the last active admin: make another user admin first", { reason: "last_admin" });
  }
}

/**
 * A new password or a disabled account ends the user's signed-in sessions, but
 * `keepSessionId`: the session of a user changing their own password stays signed in.
 */
export async function updateUser({
  id,
  input,
  actor,
  keepSessionId = null,
}: {
  id: string;
  input: UpdateUserBody;
  actor: Actor;
  keepSessionId?: string | null;
}): Promise<UserDto> {
  const passwordHash = input.password === undefined ? undefined : await hashPassword(input.password);
  const user = await db.$transaction(async (tx) => {
    const before = await tx.user.findUnique({ where: { id } });
    if (!before) throw notFound("User");
    const wasActiveAdmin = before.role === "admin" && before.disabledAt === null;
    const losesAdmin = (input.role !== undefined && input.role !== "admin") || input.disabled === true;
    if (wasActiveAdmin && losesAdmin) await assertAnotherActiveAdmin(tx, id);

    const disabledAt = input.disabled === undefined ? undefined : input.disabled ? (before.disabledAt ?? new Date()) : null;
    const updated = await tx.user.update({ where: { id }, data: { name: input.name, role: input.role, disabledAt, passwordHash } });
    const changes: Record<string, unknown> = {};
    if (input.name !== undefined && input.name !== before.name) changes.name = { from: before.name, to: input.name };
    if (input.role !== undefined && input.role !== before.role) changes.role = { from: before.role, to: input.role };
    if (input.disabled !== undefined && input.disabled !== (before.disabledAt !== null)) changes.disabled = input.disabled;
    if (passwordHash !== undefined) changes.passwordChanged = true;
    if (passwordHash !== undefined) {
      changes.sessionsEnded = await endUserSessions(tx, { userId: id, reason: "password_changed", keep: keepSessionId });
    }
    if (input.disabled === true) changes.sessionsEnded = await endUserSessions(tx, { userId: id, reason: "disabled" });
    await appendAudit(tx, { actor, action: "user.updated", targetType: "user", targetId: id, data: { email: before.email, changes } });
    return updated;
  });
  return toUserDto(user);
}
